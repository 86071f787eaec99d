-- ** Unusual van telemetry, and which reading made it unusual **
-- Scores each record of the source stream and explains the score per numeric column
-- (speed and engine temperature), into a scratch stream, then sorts each second by score.

CREATE OR REPLACE STREAM "EXPLAINED_STREAM" (
   "VAN_ID"              VARCHAR(8),
   "SPEED_KMH"           INTEGER,
   "ENGINE_TEMP_C"       INTEGER,
   "ANOMALY_SCORE"       DOUBLE,
   "ANOMALY_EXPLANATION" varchar(512));
-- What the fleet dashboard reads
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
   "VAN_ID"              VARCHAR(8),
   "SPEED_KMH"           INTEGER,
   "ENGINE_TEMP_C"       INTEGER,
   "ANOMALY_SCORE"       DOUBLE,
   "ANOMALY_EXPLANATION" varchar(512));

-- The forest with KDA's defaults, and the direction of each column
CREATE OR REPLACE PUMP "EXPLAIN_PUMP" AS INSERT INTO "EXPLAINED_STREAM"
SELECT STREAM "VAN_ID", "SPEED_KMH", "ENGINE_TEMP_C", "ANOMALY_SCORE", "ANOMALY_EXPLANATION" FROM
  TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(
    CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001"), -- inputStream
    100, -- numberOfTrees
    256, -- subSampleSize
    100000, -- timeDecay
    1, -- shingleSize
    true -- withDirectionality
  )
);

-- Within each second, the most unusual records first

CREATE OR REPLACE PUMP "OUTPUT_PUMP" AS INSERT INTO "DESTINATION_SQL_STREAM"
SELECT STREAM * FROM "EXPLAINED_STREAM"
ORDER BY FLOOR("EXPLAINED_STREAM".ROWTIME TO SECOND), ANOMALY_SCORE DESC;
