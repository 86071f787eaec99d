-- error: OJ114 2:38
SELECT STREAM * FROM a JOIN b WITHIN s5 ON a.k = b.k
