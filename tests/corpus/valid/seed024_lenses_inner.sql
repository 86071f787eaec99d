-- seed 002: INNER JOIN (SELECT TABLE and separate WITH statements rewritten as one WITH)
WITH customersTable AS (SELECT * FROM customers),
     ordersStream AS (SELECT STREAM * FROM orders)
INSERT INTO result
SELECT STREAM
    customersTable.name
   , ordersStream.item
 FROM
    ordersStream JOIN customersTable
        ON customersTable.id = ordersStream.customer_id
