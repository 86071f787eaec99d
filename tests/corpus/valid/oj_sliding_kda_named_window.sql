-- KDA's sliding window (semantics.md §12): a named window without ORDER BY, quoted names
SELECT STREAM "ticker_symbol", MIN("Price") OVER W1 AS "Min_Price", MAX("Price") OVER W1 AS "Max_Price",
       AVG("Price") OVER W1 AS "Avg_Price"
FROM "SOURCE_SQL_STREAM_001"
WINDOW W1 AS (PARTITION BY "ticker_symbol" RANGE INTERVAL '1' MINUTE PRECEDING)
