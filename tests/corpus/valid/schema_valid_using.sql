-- schemas: stocks.json
SELECT STREAM rowtime, ticker, oq.quantity FROM stocks.order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq JOIN stocks.stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp USING (ticker)
