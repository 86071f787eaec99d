-- Greenhouse probes: how many readings each probe has sent since the application
-- started, their running total, and the highest reading so far.
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
	"sensor_id"	VARCHAR(6),
	"readings"	INTEGER,
	"reading_total"	DOUBLE,
	"highest_so_far"	DOUBLE);

CREATE OR REPLACE PUMP "TOTALS_PUMP" AS INSERT INTO "DESTINATION_SQL_STREAM"
SELECT STREAM "SENSOR_ID",
	COUNT(*) OVER W1 AS "readings",
	SUM("READING") OVER W1 AS "reading_total",
	MAX("READING") OVER W1 AS "highest_so_far"
FROM "SOURCE_SQL_STREAM_001"
WINDOW W1 AS (PARTITION BY "SENSOR_ID" RANGE UNBOUNDED PRECEDING);
