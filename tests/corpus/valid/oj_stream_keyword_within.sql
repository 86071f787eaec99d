SELECT STREAM * FROM STREAM customers FULL JOIN STREAM(orders) AS o WITHIN 5s ON customers.id = o.customer_id
