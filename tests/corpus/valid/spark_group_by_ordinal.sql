-- plain Spark SQL
SELECT date_trunc('HOUR', ts) AS h, count(*) AS n FROM t GROUP BY 1
