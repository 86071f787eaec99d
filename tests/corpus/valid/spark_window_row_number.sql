-- plain Spark SQL
SELECT id, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY ts) AS rn FROM events
