-- plain Spark SQL
EXPLAIN SELECT * FROM t
