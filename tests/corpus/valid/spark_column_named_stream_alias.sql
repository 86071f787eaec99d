-- plain Spark SQL
SELECT stream AS s, x FROM t WHERE stream > 0
