-- plain Spark SQL
SELECT * FROM stream
