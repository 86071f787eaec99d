--Scores every spindle reading into a scratch stream.
CREATE OR REPLACE STREAM "SCORED_STREAM" (
	        "spindleRpm"       INTEGER,
	        "machineMode"      varchar(16),
	        "ANOMALY_SCORE"    DOUBLE);

--What the maintenance dashboard reads.	        
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
	        "spindleRpm"       INTEGER,
	        "machineMode"      varchar(16),
	        "ANOMALY_SCORE"    DOUBLE);

-- An anomaly score for each reading, from a random cut forest
-- with its default settings
CREATE OR REPLACE PUMP "SCORING_PUMP" AS 
   INSERT INTO "SCORED_STREAM"
      SELECT STREAM "spindleRpm", "machineMode", ANOMALY_SCORE 
      FROM TABLE(RANDOM_CUT_FOREST(
              CURSOR(SELECT STREAM * FROM "SPINDLE_SQL_STREAM_001")));

-- Within each second, the most unusual readings first
CREATE OR REPLACE PUMP "RANKING_PUMP" AS 
   INSERT INTO "DESTINATION_SQL_STREAM"
      SELECT STREAM * FROM "SCORED_STREAM"
      ORDER BY FLOOR("SCORED_STREAM".ROWTIME TO SECOND), ANOMALY_SCORE DESC;
