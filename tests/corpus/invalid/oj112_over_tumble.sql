-- error: OJ112 2:51
SELECT * FROM TUMBLE(s1, ts, INTERVAL '1' MINUTE) OVER (RANGE 1m PRECEDING) AS a JOIN TUMBLE(s2, ts, INTERVAL '1' MINUTE) AS b ON a.id = b.id AND a.window_start = b.window_start
