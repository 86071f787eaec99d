-- plain Spark SQL syntax error
-- error: OJ001 3:1
SELEC * FROM t
