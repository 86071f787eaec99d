-- schemas: stocks.json
SELECT STREAM c.url FROM clicks WATERMARK ts DELAY OF INTERVAL 5 SECONDS OVER (RANGE 1m PRECEDING) AS c JOIN stocks.stock_price AS sp ON c.url = sp.ticker
