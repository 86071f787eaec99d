-- Greenhouse probes: the lowest, highest and mean reading of each probe over
-- the last ninety seconds, refreshed with every reading.
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
                         sensor_id     VARCHAR(6), 
                         Low_Reading   double, 
                         High_Reading  double, 
                         Mean_Reading  double);
CREATE OR REPLACE PUMP "STREAM_PUMP" AS 
   INSERT INTO "DESTINATION_SQL_STREAM"
     SELECT STREAM sensor_id,
                   MIN(Reading) OVER W1 AS Low_Reading,
                   MAX(Reading) OVER W1 AS High_Reading,
                   AVG(Reading) OVER W1 AS Mean_Reading
     FROM   "SOURCE_SQL_STREAM_001"
     WINDOW W1 AS (
        PARTITION BY sensor_id 
        RANGE INTERVAL '90' SECOND PRECEDING);
