-- plain Spark SQL
SELECT x, CASE WHEN x > 0 THEN 'over' ELSE 'within' END AS label FROM t
