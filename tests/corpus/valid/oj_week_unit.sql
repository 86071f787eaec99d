-- WEEK is a fixed-length unit (7 days), as in Spark
SELECT STREAM * FROM a OVER (RANGE INTERVAL '1' WEEK PRECEDING) AS x JOIN b ON x.k = b.k
