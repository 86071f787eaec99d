-- plain Spark SQL
SELECT * FROM a LEFT JOIN b USING (id)
