-- the only common column is rowtime, which never counts
-- schemas: stocks.json
-- error: OJ202 4:60
SELECT STREAM * FROM people OVER (RANGE 1m PRECEDING) AS p NATURAL JOIN pets OVER (RANGE 1m PRECEDING) AS q
