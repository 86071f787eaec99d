-- seed 002: joining and grouping
WITH customersTable AS (SELECT * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders),
     joined AS (
    SELECT STREAM
        customersTable.name
        , ordersStream.item
     FROM
        ordersStream JOIN customersTable
            ON customersTable.id = ordersStream.customer_id
)
INSERT INTO joinedRes
SELECT STREAM
    COUNT(*) AS total
FROM joined
GROUP BY name
