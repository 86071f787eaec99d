CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
    locker_id VARCHAR(8), 
    site VARCHAR(32), 
    temp_c REAL, 
    opened_at TIMESTAMP, 
    charge REAL);

-- The lockers report when a door was opened in epoch milliseconds.
CREATE OR REPLACE PUMP "STREAM_PUMP" AS INSERT INTO "DESTINATION_SQL_STREAM"

SELECT STREAM   LOCKER_ID,
                SITE,
                TEMP_C,
                TO_TIMESTAMP(OPENED_AT_MS), 
                CHARGE

FROM "SOURCE_SQL_STREAM_001"