-- plain Spark SQL
USE db
