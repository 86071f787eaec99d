-- The KDA template as written, double-quoted names and all
SELECT STREAM "ticker_symbol", COUNT(*) AS "ticker_count" FROM "SOURCE_SQL_STREAM_001"
GROUP BY "ticker_symbol", STEP("SOURCE_SQL_STREAM_001".ROWTIME BY INTERVAL '1:30' MINUTE TO SECOND)
