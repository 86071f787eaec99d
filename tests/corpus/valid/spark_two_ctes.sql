-- plain Spark SQL
WITH a AS (SELECT 1 AS id), b AS (SELECT id FROM a) SELECT * FROM b
