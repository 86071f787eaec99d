SELECT STREAM * FROM (SELECT id, ts AS rowtime FROM raw) OVER (RANGE 5s PRECEDING) AS r JOIN b ON r.id = b.id
