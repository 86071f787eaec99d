-- schemas: stocks.json
-- error: OJ206 3:147
SELECT STREAM * FROM stocks.order_quantity OVER (RANGE 1m PRECEDING) AS oq JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp USING (ticker, rowtime)
