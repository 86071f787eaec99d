-- schemas: stocks.json
-- error: OJ205 3:24
SELECT STREAM rowtime, ticker FROM stocks.order_quantity OVER (RANGE 1m PRECEDING) AS oq JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp ON oq.ticker = sp.ticker
