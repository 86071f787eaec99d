-- Badge readers buffer their swipes and stamp each batch with one reader
-- time; count a door's swipes per reader batch, in a window that opens with
-- the batch's first swipe and stays open two minutes.
CREATE OR REPLACE STREAM "DOOR_ACTIVITY_STREAM" (
    reader_time TIMESTAMP,
    door_id    VARCHAR(8),
    swipe_count     INTEGER);

CREATE OR REPLACE PUMP "DOOR_ACTIVITY_PUMP" AS 
  INSERT INTO "DOOR_ACTIVITY_STREAM" 
    SELECT STREAM 
        READER_TIME, 
        DOOR,
        COUNT(DOOR) AS swipe_count
    FROM "BADGE_SQL_STREAM_001"
    WINDOWED BY STAGGER (
            PARTITION BY DOOR, READER_TIME RANGE INTERVAL '2' MINUTE);
