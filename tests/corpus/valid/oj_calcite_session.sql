-- Calcite's session window per key, in a subquery read by a streaming block
SELECT STREAM rowtime, userId, clicks
FROM (
  SELECT STREAM SESSION_END(rowtime, INTERVAL '30' MINUTE) AS rowtime,
    SESSION_START(rowtime, INTERVAL '30' MINUTE) AS started, userId, COUNT(*) AS clicks
  FROM Clicks
  GROUP BY userId, SESSION(rowtime, INTERVAL '30' MINUTE)
) AS sessions
WHERE clicks > 2
