-- seed 003: CREATE SOURCE rewritten as Spark DDL
CREATE TABLE s1 (
  id INT,
  value INT,
  ts TIMESTAMP
) USING parquet
