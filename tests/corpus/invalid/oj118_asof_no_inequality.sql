-- error: OJ118 2:43
SELECT * FROM trades t ASOF JOIN quotes q ON t.sym = q.sym
