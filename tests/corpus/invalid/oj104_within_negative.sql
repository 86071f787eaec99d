-- error: OJ104 2:38
SELECT STREAM * FROM a JOIN b WITHIN -5s ON a.k = b.k
