-- KDA's named sliding window with a unit of varying length
-- error: OJ101 4:49
SELECT STREAM k, MIN(v) OVER W1 AS lo, MAX(v) OVER W1 AS hi FROM trades
WINDOW W1 AS (PARTITION BY k RANGE INTERVAL '1' YEAR TO MONTH PRECEDING)
