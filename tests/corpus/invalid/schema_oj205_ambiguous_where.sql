-- schemas: stocks.json
-- error: OJ205 3:173
SELECT STREAM oq.quantity FROM stocks.order_quantity OVER (RANGE 1m PRECEDING) AS oq JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp ON oq.ticker = sp.ticker WHERE ticker = 'IBM'
