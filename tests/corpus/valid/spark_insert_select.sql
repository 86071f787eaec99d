-- plain Spark SQL
INSERT INTO t SELECT * FROM s
