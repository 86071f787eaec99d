-- seed 000: Orders/Shipments, the exact acceptance case
SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime
FROM Shipments AS s
JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
  ON o.orderId = s.orderId
