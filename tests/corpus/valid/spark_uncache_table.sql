-- plain Spark SQL
UNCACHE TABLE t
