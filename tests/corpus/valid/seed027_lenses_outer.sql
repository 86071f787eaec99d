-- seed 002: OUTER JOIN (Lenses' OUTER = FULL OUTER; customersTable typo fixed)
WITH customersStream AS (SELECT STREAM * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders)
INSERT INTO result
SELECT
    customersStream.name
    , ordersStream.item
 FROM
    ordersStream FULL OUTER JOIN customersStream
        ON customersStream.id = ordersStream.customer_id
