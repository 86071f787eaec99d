-- plain Spark SQL
SET spark.sql.shuffle.partitions = 4
