-- One common shape for every metric the greenhouse dashboards show, then a copy for the archive.
CREATE OR REPLACE STREAM METRICS_STREAM
    ( eventMinute TIMESTAMP, metricName VARCHAR(32), sensorId VARCHAR(6), metricValue DOUBLE);

-- Readings per minute, highest first within each minute
CREATE OR REPLACE PUMP readings_pump AS INSERT INTO METRICS_STREAM
SELECT STREAM
  STEP(source_sql_stream_001.rowtime BY INTERVAL '1' MINUTE) as eventMinute,
  'Reading',
  SENSOR_ID,
  READING
FROM source_sql_stream_001
ORDER BY STEP(source_sql_stream_001.rowtime BY INTERVAL '1' MINUTE), READING DESC;

CREATE OR REPLACE STREAM ARCHIVE_STREAM
    ( eventMinute TIMESTAMP, metricName VARCHAR(32), sensorId VARCHAR(6), metricValue DOUBLE);

-- The archive takes every metric as it is
CREATE OR REPLACE PUMP archive_pump AS INSERT INTO ARCHIVE_STREAM
SELECT * FROM METRICS_STREAM;
