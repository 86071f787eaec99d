-- Garage gates: both lanes write to one Kinesis stream. A record from the
-- entry lane carries "entry_lane", one from the exit lane "exit_lane".
CREATE OR REPLACE STREAM "GATE_IN_STREAM" ("ticketid" int, "entrytime" timestamp);
CREATE OR REPLACE PUMP "GATE_IN_PUMP" AS INSERT INTO "GATE_IN_STREAM"
SELECT STREAM "ticketid", "ROWTIME"
FROM "GARAGE_SQL_STREAM_001" WHERE "entry_lane" = 3;

CREATE OR REPLACE STREAM "GATE_OUT_STREAM" ("ticketid" int, "exittime" timestamp);
CREATE OR REPLACE PUMP "GATE_OUT_PUMP" AS INSERT INTO "GATE_OUT_STREAM"
SELECT STREAM "ticketid", "ROWTIME"
FROM "GARAGE_SQL_STREAM_001" WHERE "exit_lane" = 4;

-- Quick drop-offs: an exit whose ticket came in at most two minutes earlier.
CREATE OR REPLACE STREAM "DROPOFF_STREAM" ("matchedat" timestamp, "ticketid" int, "exittime" timestamp, "entrytime" timestamp);
CREATE OR REPLACE PUMP "DROPOFF_PUMP" AS
INSERT INTO "DROPOFF_STREAM"
  SELECT STREAM ROWTIME as "matchedat", x."ticketid", x.rowtime as "exittime", e.ROWTIME as "entrytime"
    FROM GATE_IN_STREAM OVER (RANGE INTERVAL '2' MINUTE PRECEDING) AS e
      JOIN GATE_OUT_STREAM AS x
        ON e."ticketid" = x."ticketid";

