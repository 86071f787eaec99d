-- How fast each probe is drifting, relative to its reading before the drift,
-- averaged over the last twenty seconds.
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
                            sensor_id VARCHAR(6), 
                            Avg_Relative_Drift double);
CREATE OR REPLACE PUMP "STREAM_PUMP" AS 
   INSERT INTO "DESTINATION_SQL_STREAM"
      SELECT STREAM Sensor_Id,
                    AVG(Drift / (Reading - Drift)) over W1 as Avg_Relative_Drift
      FROM "SOURCE_SQL_STREAM_001"
      WINDOW W1 AS (
              PARTITION BY sensor_id 
              RANGE INTERVAL '20' SECOND PRECEDING);
