-- seed 001: example with ROWS
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
  FROM order_quantity OVER (ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS oq
  JOIN stock_price OVER (ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS sp
  ON (oq.ticker = sp.ticker)
