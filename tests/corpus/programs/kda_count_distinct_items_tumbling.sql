CREATE OR REPLACE STREAM DESTINATION_SQL_STREAM (
    UNIQUE_VISITORS BIGINT);

CREATE OR REPLACE PUMP "STREAM_PUMP" AS 
   INSERT INTO "DESTINATION_SQL_STREAM"
      SELECT STREAM * 
      FROM TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(
          CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001"),  -- every page view
            'CLIENT_ID',                                         -- one visitor per client id
            120                                                  -- two-minute windows
      )
);
