-- Most watched channels per five-minute window, named from the channel guide (a reference
-- table joined inside the cursor), then only the channels over a threshold.
CREATE OR REPLACE STREAM "CHANNEL_TOTALS" (
   "genre"   VARCHAR(16),
   "numOfTunes" integer);
-- Tune-in events joined with the "GUIDE" table on the channel number,
-- counted per genre over a 300 second tumbling window.
CREATE OR REPLACE PUMP "TOTALS_PUMP" AS INSERT INTO "CHANNEL_TOTALS"
SELECT STREAM *
        FROM TABLE (TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001" JOIN GUIDE as g
  ON "SOURCE_SQL_STREAM_001"."channel" = g."channel"),'genre',4,300));


CREATE OR REPLACE STREAM "BUSY_GENRES" ("genre" VARCHAR(16), "numOfTunes" integer);
CREATE OR REPLACE PUMP "GENRES_OVER_30" AS INSERT INTO "BUSY_GENRES"
SELECT STREAM "genre", "numOfTunes"
    FROM (SELECT "genre", "numOfTunes" FROM "CHANNEL_TOTALS") WHERE "numOfTunes">30;
