-- Each reading next to two smoothed values: the mean of the probe's last
-- four readings and the mean of its last nine.
CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" (
                           sensor_id          VARCHAR(12), 
                           reading            double, 
                           average_last4rows  double, 
                           average_last9rows  double);

CREATE OR REPLACE PUMP "smoothingPump" AS INSERT INTO "DESTINATION_SQL_STREAM"
SELECT STREAM sensor_id, 
              reading, 
              avg(reading) over last4rows, 
              avg(reading) over last9rows
FROM SOURCE_SQL_STREAM_001
WINDOW
    last4rows AS (PARTITION BY sensor_id ROWS 3 PRECEDING),
    last9rows AS (PARTITION BY sensor_id ROWS 8 PRECEDING);
