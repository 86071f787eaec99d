-- plain Spark SQL
SELECT id FROM t WHERE id IN (SELECT id FROM u)
