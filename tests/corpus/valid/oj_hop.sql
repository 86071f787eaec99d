SELECT * FROM HOP(s1, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) AS a JOIN HOP(s2, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) AS b ON a.id = b.id AND a.window_start = b.window_start
