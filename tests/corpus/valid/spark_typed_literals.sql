-- plain Spark SQL
SELECT 5s AS small, 1d AS dbl, 10L AS big
