-- plain Spark SQL
SELECT id, collect_list(v) AS vs FROM t GROUP BY id HAVING COUNT(*) > 1
