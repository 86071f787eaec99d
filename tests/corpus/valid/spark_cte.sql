-- plain Spark SQL
WITH x AS (SELECT id FROM t) SELECT * FROM x
