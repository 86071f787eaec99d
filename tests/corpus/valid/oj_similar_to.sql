-- KDA's getting-started filter: SIMILAR TO (the SQL standard's pattern match), with NOT and ESCAPE
SELECT STREAM ticker_symbol, sector, change, price
FROM "SOURCE_SQL_STREAM_001"
WHERE sector SIMILAR TO '%TECH%' AND ticker_symbol NOT SIMILAR TO 'A!%%' ESCAPE '!'
