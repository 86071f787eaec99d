-- plain Spark SQL
SELECT * FROM a LEFT ANTI JOIN b ON a.id = b.id
