-- error: OJ102 5:39
SELECT STREAM rowtime, o.id
FROM orders
  OVER (RANGE BETWEEN INTERVAL '1' HOUR PRECEDING
              AND INTERVAL '5' MINUTE FOLLOWING) AS o
JOIN shipments AS s ON o.id = s.order_id
