-- plain Spark SQL
SELECT window(ts, '5 minutes') AS w, COUNT(*) AS n FROM events GROUP BY window(ts, '5 minutes')
