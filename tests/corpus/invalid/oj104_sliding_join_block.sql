-- a block in the streaming dialect without SELECT STREAM (a join window makes it one): its window functions' frames are checked too
-- error: OJ104 3:33
SELECT a.k, SUM(a.v) OVER (ROWS -1 PRECEDING) AS s
FROM a OVER (RANGE INTERVAL '1' MINUTE PRECEDING) JOIN b ON a.k = b.k
