-- a window function's frame in a streaming block is read as a join window's: MONTH varies in length
-- error: OJ101 4:55
SELECT STREAM ROWTIME, k,
       SUM(v) OVER (PARTITION BY k RANGE INTERVAL '1' MONTH PRECEDING) AS s
FROM trades
