-- a duration may have a fraction: 1.5s = 1500ms
SELECT STREAM * FROM a JOIN b ON a.k = b.k WITHIN 1.5s
