-- plain Spark SQL
SHOW TABLES
