-- Calcite's hopping window (slide, then size), HOP_START inside an aggregate function, in a pump
CREATE OR REPLACE PUMP decaying AS INSERT INTO hourly_averages
SELECT STREAM HOP_END(rowtime, INTERVAL '1' MINUTE, INTERVAL '1' HOUR) AS rowtime,
  productId,
  SUM(unitPrice * EXP(TIMESTAMPDIFF(SECOND, HOP_START(rowtime, 60s, INTERVAL '1:00' HOUR TO MINUTE), rowtime) / 3600.0))
    / SUM(EXP(TIMESTAMPDIFF(SECOND, HOP_START(rowtime, 60s, INTERVAL '1:00' HOUR TO MINUTE), rowtime) / 3600.0)) AS avg_price
FROM Orders
GROUP BY HOP(rowtime, INTERVAL '1' MINUTE, INTERVAL '1' HOUR), productId
