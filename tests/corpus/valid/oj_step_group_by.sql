-- KDA's tumbling window: GROUP BY STEP of ROWTIME (docs/semantics.md §11)
SELECT STREAM ROWTIME, ticker, COUNT(*) AS n, STEP(s.ROWTIME BY INTERVAL '60' SECOND) AS window_start
FROM trades AS s
GROUP BY ticker, STEP(s.ROWTIME BY INTERVAL '60' SECOND)
