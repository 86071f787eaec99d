-- schemas: stocks.json
-- error: OJ204 3:48
SELECT STREAM v.page FROM views OVER (ORDER BY event_time RANGE 1m PRECEDING) AS v JOIN clicks c ON c.id = v.id
