-- error: OJ119 3:70
-- Kinesis Data Analytics developer guide, stream joins, example 1 with a WINDOW clause, as printed: t names the window, not TradeStream
SELECT STREAM ROWTIME, o.orderId, o.ticker, o.amount AS orderAmount, t.amount AS tradeAmount FROM OrderStream AS o JOIN TradeStream OVER t ON o.orderId = t.orderId WINDOW t AS (RANGE INTERVAL '1' MINUTE PRECEDING)
