-- options: double_quoted_identifiers
-- error: OJ107 3:29
SELECT STREAM * FROM a OVER "lastFew" AS x JOIN b OVER "lastFew" AS y ON x.k = y.k
WINDOW "lastMinute" AS (RANGE INTERVAL '1' MINUTE PRECEDING)
