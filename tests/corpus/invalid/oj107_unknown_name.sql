-- error: OJ107 2:29
SELECT STREAM * FROM a OVER w AS x JOIN b ON x.k = b.k
