-- STEP of a number and FLOOR ... TO outside GROUP BY are values; FLOOR(x) is Spark's
SELECT STREAM ROWTIME, STEP(price BY 5) AS bucket, FLOOR(ROWTIME TO DAY) AS day, FLOOR(price) AS p FROM trades
