-- plain Spark SQL
SELECT * FROM a CROSS JOIN b ON a.id = b.id
