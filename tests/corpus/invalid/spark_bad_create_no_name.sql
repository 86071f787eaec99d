-- plain Spark SQL syntax error
-- error: OJ001 3:14
CREATE TABLE (a INT)
