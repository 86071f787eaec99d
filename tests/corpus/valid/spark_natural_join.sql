-- plain Spark SQL
SELECT * FROM a NATURAL JOIN b
