-- plain Spark SQL syntax error
-- error: OJ001 3:27
SELECT * FROM t WHERE a = = 1
