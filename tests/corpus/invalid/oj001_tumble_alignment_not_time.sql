-- error: OJ001 3:83
-- the alignment is a TIME literal
SELECT STREAM COUNT(*) FROM Orders GROUP BY TUMBLE(rowtime, INTERVAL '30' MINUTE, '0:12')
