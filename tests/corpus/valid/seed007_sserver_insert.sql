-- seed 001: plain Spark INSERT
INSERT INTO stocks.ticker_price (order_time, ticker, price) VALUES (CAST('2019-03-30 05:03:30.000' as TIMESTAMP), 'IBM', 200)
