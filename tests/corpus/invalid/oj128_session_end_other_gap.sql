-- error: OJ128 3:36
-- SESSION_END's gap is not that of the GROUP BY's SESSION: the caret is at the gap
SELECT STREAM SESSION_END(rowtime, INTERVAL '20' MINUTE) AS rowtime, userId, COUNT(*) AS clicks
FROM Clicks
GROUP BY userId, SESSION(rowtime, INTERVAL '30' MINUTE)
