-- error: OJ128 3:15
-- TUMBLE_END names the window of GROUP BY TUMBLE(...), which this block does not have
SELECT STREAM TUMBLE_END(rowtime, INTERVAL '1' HOUR) AS rowtime, productId, COUNT(*) AS c
FROM Orders
GROUP BY FLOOR(rowtime TO HOUR), productId
