-- seed 001: join conditions
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
  FROM stocks.order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq
    JOIN stocks.stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp
    ON (oq.ticker = sp.ticker)
