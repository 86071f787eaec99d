-- error: OJ001 2:41
SELECT STREAM * FROM a OVER (ORDER BY ts) AS x JOIN b ON x.k = b.k
