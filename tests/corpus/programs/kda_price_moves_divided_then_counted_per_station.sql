-- Fuel stations report each grade's price and its change since the last report.
-- Keep the moves of more than two percent, then flag the stations that moved twice in ten minutes,
-- and average each station's moves every ten minutes.
CREATE OR REPLACE STREAM "PRICE_MOVES_STREAM" 
           (station_id    VARCHAR(8), 
            grade         VARCHAR(8), 
            delta         DOUBLE, 
            price         DOUBLE);

CREATE OR REPLACE PUMP "price_moves_pump" AS 
   INSERT INTO "PRICE_MOVES_STREAM"
      SELECT STREAM station_id, grade, delta, price 
      FROM   "SOURCE_SQL_STREAM_001"
      WHERE  (ABS(delta / (price - delta)) * 100) > 2;

-- ** Busy stations **
-- Counts the moves each station made over the last ten minutes, and keeps the stations
-- that moved at least twice

CREATE OR REPLACE STREAM BUSY_STATION_STREAM (
   station_id VARCHAR(8), 
   delta REAL,
   move_count INTEGER);

CREATE OR REPLACE PUMP busy_station_pump AS INSERT INTO BUSY_STATION_STREAM
SELECT STREAM station_id, delta, move_count
FROM (
    SELECT STREAM station_id, delta, COUNT(*) OVER TEN_MINUTES as move_count
    FROM "PRICE_MOVES_STREAM"
    --the moves of each station over the last ten minutes
    WINDOW TEN_MINUTES AS (PARTITION BY station_id RANGE INTERVAL '10' MINUTE PRECEDING)
)
WHERE move_count >= 2;

-- ** Average move **
-- Each station's average move, in percent of the price before it, every ten minutes

CREATE OR REPLACE STREAM "AVERAGE_MOVE_STREAM" (
   station_id   VARCHAR(8),
   avg_move_pct DOUBLE,
   reports      INTEGER);

CREATE OR REPLACE PUMP "average_move_pump" AS INSERT INTO "AVERAGE_MOVE_STREAM"
SELECT STREAM station_id, SUM(delta / (price - delta)) * 100 / COUNT(*), COUNT(*)
FROM "SOURCE_SQL_STREAM_001"
GROUP BY station_id, STEP("SOURCE_SQL_STREAM_001".ROWTIME BY INTERVAL '10' MINUTE);
