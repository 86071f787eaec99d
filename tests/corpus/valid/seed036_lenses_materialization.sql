-- seed 002: table materialization
WITH customersStream AS (SELECT * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders)
INSERT INTO result
SELECT
    customersStream.name
   , ordersStream.item
 FROM
    ordersStream FULL OUTER JOIN customersStream
        ON customersStream.id = ordersStream.customer_id
