-- error: OJ128 3:51
-- HOP_END's size is not that of the GROUP BY's HOP
SELECT STREAM HOP_END(rowtime, INTERVAL '1' HOUR, INTERVAL '2' HOUR) AS rowtime, COUNT(*) AS c
FROM Orders
GROUP BY HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '3' HOUR)
