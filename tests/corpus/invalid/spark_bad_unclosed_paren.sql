-- plain Spark SQL syntax error
-- error: OJ001 3:11
SELECT (a FROM t
