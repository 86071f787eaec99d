-- seed 002: WITHIN after ON
SELECT STREAM
     customers.name
    , orders.item
FROM
    customers LEFT JOIN orders
        ON customers.id = orders.customer_id
WITHIN 5s
