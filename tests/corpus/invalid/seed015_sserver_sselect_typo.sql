-- seed 001 as written: SSELECT cannot start a statement
-- error: OJ001 3:1
SSELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
   FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq,
   stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp WHERE sp.ticker = oq.ticker
