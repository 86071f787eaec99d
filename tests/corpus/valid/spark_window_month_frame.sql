-- plain Spark SQL: a window function's RANGE frame over a table may use MONTH
SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND CURRENT ROW) AS s FROM hist
