-- plain Spark SQL
SELECT rowtime, COUNT(*) AS n FROM t GROUP BY rowtime
