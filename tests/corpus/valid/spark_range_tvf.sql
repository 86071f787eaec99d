-- plain Spark SQL
SELECT * FROM range(10)
