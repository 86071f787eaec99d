SELECT STREAM DISTINCT ROWTIME, o.id FROM orders OVER (RANGE 1m PRECEDING) AS o JOIN payments p ON o.id = p.order_id
