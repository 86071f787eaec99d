-- plain Spark SQL
SELECT stream FROM t
