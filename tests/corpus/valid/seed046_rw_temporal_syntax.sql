-- seed 003: temporal join syntax, LEFT form
SELECT * FROM orders AS o
LEFT JOIN products FOR SYSTEM_TIME AS OF PROCTIME() AS p
ON o.product_id = p.id
