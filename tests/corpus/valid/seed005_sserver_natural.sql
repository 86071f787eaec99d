-- seed 001: example with NATURAL (alias typo oa fixed to oq)
SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price FROM stocks.order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) as oq   NATURAL JOIN stocks.stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp
