-- a subquery that is not in the streaming dialect keeps Spark's window frames (MONTH in a RANGE frame is Spark's there)
SELECT STREAM ROWTIME, k,
       (SELECT MAX(m) FROM (SELECT SUM(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND CURRENT ROW) AS m FROM hist)) AS top
FROM trades
