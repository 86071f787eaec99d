-- schemas: stocks.json
-- error: OJ203 3:26
SELECT STREAM c.url FROM clicks OVER (RANGE 1m PRECEDING) AS c JOIN stocks.stock_price AS sp ON c.url = sp.ticker
