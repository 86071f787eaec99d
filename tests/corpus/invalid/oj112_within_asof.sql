-- error: OJ112 2:77
SELECT * FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND q.ts <= t.ts WITHIN 5s
