CREATE OR REPLACE STREAM DESTINATION_SQL_STREAM (
  "PAGE" VARCHAR(16), 
  "HITS" BIGINT
);

CREATE OR REPLACE PUMP "STREAM_PUMP" AS 
    INSERT INTO "DESTINATION_SQL_STREAM"
    SELECT STREAM * 
        FROM TABLE (TOP_K_ITEMS_TUMBLING(
            CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001"),
            'PAGE_PATH',             -- the column whose values are counted
            3,                       -- keep the three busiest pages
            30                       -- per thirty seconds
            )
        );
