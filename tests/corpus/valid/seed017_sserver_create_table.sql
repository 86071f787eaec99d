-- seed 001: CREATE TABLE (its typos fixed) as Spark DDL
CREATE TABLE animal_data (
    animal_id INT NOT NULL,
    edible BOOLEAN,
    poisonous BOOLEAN,
    name VARCHAR(32) NOT NULL,
    species VARCHAR(32) NOT NULL,
    genus VARCHAR(32) NOT NULL
) USING parquet
