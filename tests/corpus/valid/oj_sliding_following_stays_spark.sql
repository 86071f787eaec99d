-- a frame with FOLLOWING stays Spark's, MONTH included: refused on a stream at analysis (OJ121), Spark's over a table
SELECT STREAM k, SUM(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND UNBOUNDED FOLLOWING) AS s
FROM trades
