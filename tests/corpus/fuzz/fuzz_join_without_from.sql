-- found by the fuzzer: sqlglot reads joins without a FROM, and the validator then had no left input
SELECT STREAM
     customers.name
    , orders.item

    customers LEFT JOIN orders
        ON customers.id = orders.customer_id
WITHIN 5s
