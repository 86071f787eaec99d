-- plain Spark SQL
SELECT * FROM (SELECT id, ts FROM t WHERE id > 0) AS sub
