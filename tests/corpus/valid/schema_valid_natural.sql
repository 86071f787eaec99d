-- schemas: stocks.json
SELECT STREAM * FROM stocks.order_quantity OVER (RANGE 1m PRECEDING) AS oq NATURAL JOIN stocks.stock_price OVER (RANGE 1m PRECEDING) AS sp
