-- Calcite's group window TUMBLE aligned at 0:12, with TUMBLE_START and TUMBLE_END of the same window
-- (its size written another way), without SELECT STREAM: the calls make the block overjoin's
SELECT TUMBLE_START(rowtime, INTERVAL '30' MINUTE, TIME '0:12') AS window_start,
  TUMBLE_END(o.rowtime, INTERVAL '1800' SECOND, TIME '00:12:00') AS rowtime,
  productId, COUNT(*) AS c, SUM(units) AS units
FROM Orders AS o
GROUP BY TUMBLE(rowtime, INTERVAL '30' MINUTE, TIME '0:12'), productId
