-- Calcite's streaming guide, "Tumbling windows": GROUP BY CEIL(rowtime TO HOUR), the window's end
SELECT STREAM CEIL(rowtime TO HOUR) AS rowtime,
  productId,
  COUNT(*) AS c,
  SUM(units) AS units
FROM Orders
GROUP BY CEIL(rowtime TO HOUR), productId
