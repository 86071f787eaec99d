-- plain Spark SQL
SELECT `ROWTIME`, `WITHIN`, `over`, `asof` FROM t
