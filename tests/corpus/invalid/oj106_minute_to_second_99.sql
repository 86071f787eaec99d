-- error: OJ106 3:45
-- a trailing field must be in range, as in SQL and Spark: 99 seconds is not a seconds field
SELECT STREAM * FROM a OVER (RANGE INTERVAL '1:99' MINUTE TO SECOND PRECEDING) AS x JOIN b ON x.k = b.k
