-- plain Spark SQL
DROP TABLE IF EXISTS t
