-- options: double_quoted_identifiers
-- KDA's template tumbling window: the difference from a TIMESTAMP literal, in seconds, floored to steps of 30
CREATE OR REPLACE PUMP "DOOR_COUNT_PUMP" AS INSERT INTO "DOOR_COUNTS"
SELECT STREAM "building", COUNT(*) AS "openings"
FROM "DOOR_EVENTS"
GROUP BY "building", FLOOR(("DOOR_EVENTS".ROWTIME - TIMESTAMP '1970-01-01 00:00:00') SECOND / 30 TO SECOND)
