-- a sliding window's bound needs PRECEDING (the JVM points at the closing parenthesis)
-- error: OJ001 3:56
SELECT STREAM k, SUM(v) OVER (RANGE INTERVAL '1' MINUTE) AS s FROM trades
