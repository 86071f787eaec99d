-- error: OJ128 5:37
-- a group window inside GROUPING SETS is not an item of GROUP BY (not yet)
SELECT STREAM productId, COUNT(*) AS c
FROM Orders
GROUP BY GROUPING SETS ((productId, TUMBLE(rowtime, INTERVAL '1' HOUR)))
