-- schemas: stocks.json
-- error: OJ203 3:26
SELECT STREAM c.url FROM STREAM clicks AS c JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp ON c.url = sp.ticker
