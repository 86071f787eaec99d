-- ROWS per partition is fine in an inner join
SELECT STREAM * FROM a OVER (PARTITION BY k ROWS 2 PRECEDING) AS x JOIN b OVER (RANGE 1m PRECEDING) AS y ON x.k = y.k
