-- seed 001: comma join (typos SSELECT and oa fixed)
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price
   FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq,
   stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp WHERE sp.ticker = oq.ticker
