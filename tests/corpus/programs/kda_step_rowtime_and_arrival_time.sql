-- Turnstile taps per station in half-minute buckets: once by the time the
-- gate stamped the tap (ROWTIME), once by when Kinesis received it.
CREATE OR REPLACE STREAM "STATION_TAPS" 
    ("bucket_start"    timestamp,
    "APPROXIMATE_ARRIVAL_TIME" timestamp,
    "station"  VARCHAR(8), 
    "tap_count"        integer);
	
	
CREATE OR REPLACE PUMP "TAP_COUNT_PUMP" AS
    INSERT INTO "STATION_TAPS"
    SELECT STREAM STEP("TURNSTILE_SQL_STREAM_001".ROWTIME BY INTERVAL '30' SECOND) AS "bucket_start",
        STEP("TURNSTILE_SQL_STREAM_001".APPROXIMATE_ARRIVAL_TIME BY INTERVAL '30' SECOND) AS "APPROXIMATE_ARRIVAL_TIME",
        "STATION",
        COUNT(*) AS "tap_count"
    FROM "TURNSTILE_SQL_STREAM_001"
    GROUP BY "STATION",
        STEP("TURNSTILE_SQL_STREAM_001".ROWTIME BY INTERVAL '30' SECOND),
        STEP("TURNSTILE_SQL_STREAM_001".APPROXIMATE_ARRIVAL_TIME BY INTERVAL '30' SECOND);
