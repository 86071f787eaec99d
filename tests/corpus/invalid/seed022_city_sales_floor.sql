-- seed 001: ORDER BY an expression is not a rowtime column
-- error: OJ109 4:32
SELECT STREAM cs.*, ci.*
FROM city_sales OVER (ORDER BY FLOOR(ROWTIME TO HOUR)
                      RANGE CURRENT ROW) AS cs
RIGHT OUTER JOIN city_info AS ci
USING(city)
