-- What OJ128 says to write for a window's end in HAVING: select it, filter outside; the window
-- written with the same values in other spellings (60 minutes, a duration, an alignment a whole hour on)
SELECT STREAM ROWTIME, productId, window_end, c
FROM (
  SELECT STREAM TUMBLE_END(rowtime, INTERVAL '60' MINUTE, TIME '1:12') AS window_end,
    TUMBLE_START(o.rowtime, 1h, TIME '0:12') AS window_start, productId, COUNT(*) AS c
  FROM Orders AS o
  GROUP BY TUMBLE(rowtime, INTERVAL '1' HOUR, TIME '0:12'), productId
) AS w
WHERE c > 2 AND HOUR(window_end) BETWEEN 9 AND 17
