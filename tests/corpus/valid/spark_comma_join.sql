-- plain Spark SQL
SELECT * FROM a, b WHERE a.id = b.id
