-- plain Spark SQL
SELECT LAG(x) OVER w AS prev_x FROM t WINDOW w AS (ORDER BY ts)
