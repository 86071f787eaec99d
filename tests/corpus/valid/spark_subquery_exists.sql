-- plain Spark SQL
SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)
