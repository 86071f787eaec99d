-- error: OJ128 5:7
-- HOP_START names a group's window, which WHERE (before grouping) cannot read
SELECT STREAM COUNT(*) AS c
FROM Orders
WHERE HOP_START(rowtime, INTERVAL '1' HOUR, INTERVAL '2' HOUR) > TIMESTAMP '2024-01-01 00:00:00'
GROUP BY HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '2' HOUR)
