-- plain Spark SQL
SELECT * FROM t WHERE s LIKE '%WITHIN%'
