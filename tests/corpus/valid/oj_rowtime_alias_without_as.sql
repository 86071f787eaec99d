-- ROWTIME aliased as ROWTIME without AS (found by the fuzzer: overjoin took the alias for a reference)
SELECT STREAM ROWTIME ROWTIME , o.orderId FROM OrderStream AS o JOIN TradeStream OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS t ON o.orderId = t.orderId
