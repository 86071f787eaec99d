-- error: OJ112 2:70
SELECT * FROM sales s JOIN products FOR SYSTEM_TIME AS OF PROCTIME() OVER (RANGE 1m PRECEDING) AS p ON s.product_id = p.id
