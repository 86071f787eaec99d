-- schemas: stocks.json
-- error: OJ201 3:153
SELECT STREAM rowtime FROM stocks.order_quantity OVER (RANGE 1m PRECEDING) AS oq JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp USING (ticker, quantity)
