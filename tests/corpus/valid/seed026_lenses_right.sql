-- seed 002: RIGHT JOIN
WITH customersTable AS (SELECT * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders)
INSERT INTO result
SELECT
    customersTable.name
    , ordersStream.item
 FROM
    customersTable RIGHT JOIN ordersStream
        ON customersTable.id = ordersStream.customer_id
