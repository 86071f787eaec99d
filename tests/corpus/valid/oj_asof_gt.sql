SELECT * FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND q.ts < t.ts
