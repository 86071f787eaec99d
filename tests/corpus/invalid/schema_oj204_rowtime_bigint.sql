-- schemas: stocks.json
-- error: OJ204 3:28
SELECT STREAM t.price FROM ticks OVER (RANGE 1m PRECEDING) AS t JOIN stocks.stock_price sp ON t.ticker = sp.ticker
