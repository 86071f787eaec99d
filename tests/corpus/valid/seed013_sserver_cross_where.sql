-- seed 001: CROSS JOIN and WHERE (alias typo oa fixed)
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
  FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) as oq
    CROSS JOIN stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp WHERE sp.ticker = oq.ticker
