-- plain Spark SQL
CREATE TABLE IF NOT EXISTS db.events2 (id INT, day STRING) USING parquet PARTITIONED BY (day)
