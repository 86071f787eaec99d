-- plain Spark SQL
DROP VIEW IF EXISTS v
