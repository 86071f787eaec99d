-- SELECT STREAM, then the column stream named rowtime (as Spark reads SELECT stream rowtime)
SELECT STREAM STREAM rowtime FROM OrderStream AS o JOIN TradeStream OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS t ON o.orderId = t.orderId
