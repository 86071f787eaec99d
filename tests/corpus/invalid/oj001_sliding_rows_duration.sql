-- ROWS counts rows: a duration is not a row count
-- error: OJ001 3:36
SELECT STREAM k, SUM(v) OVER (ROWS 5s PRECEDING) AS s FROM trades
