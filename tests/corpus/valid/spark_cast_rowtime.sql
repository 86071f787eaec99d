-- plain Spark SQL
SELECT CAST(ts AS TIMESTAMP) AS rowtime, id FROM raw
