-- plain Spark SQL
SELECT * FROM a FULL OUTER JOIN b ON a.id = b.id
