-- plain Spark SQL
TRUNCATE TABLE t
