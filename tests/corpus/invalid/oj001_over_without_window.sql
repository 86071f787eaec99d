-- error: OJ001 2:29
SELECT STREAM * FROM a OVER AS x JOIN b ON x.k = b.k
