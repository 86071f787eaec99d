-- Spark's own ceil, ceiling, window() and session_window(), and columns named like Calcite's functions
SELECT ceil(v), ceiling(v, 1), session, hop, tumble_end, session_window.start, COUNT(*)
FROM t
GROUP BY ceil(v), ceiling(v, 1), session, hop, tumble_end, session_window(ts, '5 minutes')
