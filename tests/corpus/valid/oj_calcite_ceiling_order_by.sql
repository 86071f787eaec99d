-- Calcite's streaming guide, "Sorting": ORDER BY CEILING(rowtime TO hour) first, lower-case unit
SELECT STREAM CEILING(rowtime TO hour) AS rowtime, productId, orderId, units
FROM Orders
ORDER BY CEILING(rowtime TO hour) ASC, units DESC
