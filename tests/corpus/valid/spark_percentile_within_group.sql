-- plain Spark SQL
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS med FROM t
