-- plain Spark SQL
SELECT a, y FROM t LATERAL VIEW explode(arr) x AS y
