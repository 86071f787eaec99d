-- error: OJ001 5:100
-- options: double_quoted_identifiers
-- the difference is in minutes but floored to seconds: the units must be the same
SELECT STREAM "building", COUNT(*) AS "openings" FROM "DOOR_EVENTS"
GROUP BY "building", FLOOR(("DOOR_EVENTS".ROWTIME - TIMESTAMP '1970-01-01 00:00:00') MINUTE / 5 TO SECOND)
