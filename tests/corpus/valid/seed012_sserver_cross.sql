-- seed 001: CROSS join
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
  FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) as oq
    CROSS JOIN stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS o
