-- plain Spark SQL
SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, name)
