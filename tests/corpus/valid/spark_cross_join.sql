-- plain Spark SQL
SELECT * FROM a CROSS JOIN b
