-- plain Spark SQL
SELECT ts + INTERVAL '1' HOUR AS later FROM t
