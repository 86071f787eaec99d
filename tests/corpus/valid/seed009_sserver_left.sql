-- seed 001: LEFT join
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
  FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) as oq
    LEFT JOIN stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp
    ON (oq.ticker = sp.ticker)
