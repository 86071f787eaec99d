-- error: OJ001 5:58
-- TUMBLE takes the time, the size and an optional alignment: the fourth argument is the error
SELECT STREAM COUNT(*) AS c
FROM Orders
GROUP BY TUMBLE(rowtime, INTERVAL '1' HOUR, TIME '0:12', INTERVAL '1' MINUTE)
