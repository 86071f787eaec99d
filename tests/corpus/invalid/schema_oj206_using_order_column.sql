-- schemas: stocks.json
-- error: OJ206 3:138
SELECT STREAM * FROM clicks OVER (ORDER BY ts RANGE 1m PRECEDING) AS c JOIN clicks OVER (ORDER BY ts RANGE 1m PRECEDING) AS d USING (id, ts)
