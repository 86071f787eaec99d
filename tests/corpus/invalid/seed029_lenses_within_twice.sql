-- seed 002 as written: WITHIN twice
-- error: OJ001 9:1
SELECT STREAM
     customers.name
    , orders.item
FROM
    customers LEFT JOIN orders WITHIN 5s
        ON customers.id = orders.customer_id
WITHIN 5s
