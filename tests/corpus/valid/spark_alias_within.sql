-- plain Spark SQL
SELECT * FROM a JOIN b within ON a.x = within.x
