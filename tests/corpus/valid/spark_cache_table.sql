-- plain Spark SQL
CACHE TABLE t
