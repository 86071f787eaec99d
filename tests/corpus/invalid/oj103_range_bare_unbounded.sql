-- UNBOUNDED without a side: refused as unbounded where the word is, as with PRECEDING
-- error: OJ103 3:36
SELECT STREAM * FROM a OVER (RANGE UNBOUNDED) AS x JOIN b ON x.k = b.k
