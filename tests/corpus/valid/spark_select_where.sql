-- plain Spark SQL
SELECT a, b FROM t WHERE a > 1
