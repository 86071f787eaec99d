-- error: OJ118 2:48
SELECT * FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND q.ts <= t.ts AND q.ts > t.ts - INTERVAL 1 HOUR
