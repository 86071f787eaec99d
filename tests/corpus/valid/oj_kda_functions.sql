-- KDA's functions Spark lacks, in a streaming block; UNIX_TIMESTAMP here counts milliseconds
SELECT STREAM ROWTIME, TSDIFF(ROWTIME, CHAR_TO_TIMESTAMP('yyyy-MM-dd HH:mm:ss', ts)) AS lag_ms,
  UNIX_TIMESTAMP(ROWTIME) / 1000 AS epoch_s, REGEX_REPLACE(sector, 'TECH', 'TECHNOLOGY', 1, 0) AS sector,
  TIMESTAMP_TO_CHAR('yyyy-MM-dd', ROWTIME) AS day, CURRENT_ROW_TIMESTAMP AS computed_at
FROM "SOURCE_SQL_STREAM_001"
