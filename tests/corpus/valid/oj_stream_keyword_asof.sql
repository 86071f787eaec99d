SELECT * FROM STREAM trades AS t ASOF LEFT JOIN STREAM(quotes) AS q ON t.sym = q.sym AND q.ts <= t.ts
