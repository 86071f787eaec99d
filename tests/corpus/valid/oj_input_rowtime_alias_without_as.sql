-- An input's ROWTIME aliased as ROWTIME without AS
SELECT STREAM o.ROWTIME ROWTIME, o.orderId FROM OrderStream AS o JOIN TradeStream OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS t ON o.orderId = t.orderId
