-- plain Spark SQL syntax error
-- error: OJ001 3:12
SELECT a b c FROM t
