-- seed 002: LEFT JOIN
WITH customersTable AS (SELECT * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders)
INSERT INTO result
SELECT STREAM
    customersTable.name
    , ordersStream.item
 FROM
    ordersStream LEFT JOIN customersTable
        ON customersTable.id = ordersStream.customer_id
