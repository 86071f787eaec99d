-- A KDA application's tumbling window over a column declared monotonic (its input's rowtime)
SELECT STREAM "state", COUNT(*) AS "order_count"
FROM "ORDERS_STREAM_001"
GROUP BY FLOOR(MONOTONIC("order_date") TO MINUTE), "state"
