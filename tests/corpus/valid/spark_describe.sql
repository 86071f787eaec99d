-- plain Spark SQL
DESCRIBE TABLE t
