-- seed 001: CREATE STREAM rewritten as Spark DDL
CREATE TABLE beast_events (
    row_id INT NOT NULL,
    sensor INT,
    zone INT,
    animal_id INT,
    weight INT
) USING parquet
