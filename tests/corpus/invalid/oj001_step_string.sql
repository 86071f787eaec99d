-- error: OJ001 2:57
SELECT k, COUNT(*) FROM t GROUP BY k, STEP(t.ROWTIME BY '1 minute')
