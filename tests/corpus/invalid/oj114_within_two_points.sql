-- error: OJ114 2:51
SELECT STREAM * FROM a JOIN b ON a.k = b.k WITHIN 1.5.5s
