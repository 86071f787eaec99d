-- seed 002: stream-table LEFT JOIN (names fixed)
WITH customersTable AS (SELECT * FROM customers)
SELECT STREAM
    customersTable.name
   , orders.item
FROM
    orders LEFT JOIN customersTable
        ON customersTable.id = orders.customer_id
