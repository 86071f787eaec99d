-- plain Spark SQL
CREATE TABLE events (id INT, ts TIMESTAMP, payload STRING) USING parquet
