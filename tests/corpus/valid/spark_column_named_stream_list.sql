-- plain Spark SQL
SELECT stream, x FROM t
