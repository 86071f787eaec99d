-- schemas: stocks.json
SELECT STREAM c.url, v.page FROM clicks OVER (ORDER BY ts RANGE 1m PRECEDING) AS c JOIN views AS v ON c.id = v.id
