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

-- Every entry of the last two minutes, once per exit of its ticket at the
-- same instant, and once on its own when there is none.
CREATE OR REPLACE STREAM "ENTRY_AUDIT_STREAM" ("matchedat" timestamp, "ticketid" int, "entrytime" timestamp);
CREATE OR REPLACE PUMP "ENTRY_AUDIT_PUMP" AS INSERT INTO "ENTRY_AUDIT_STREAM"
  SELECT STREAM ROWTIME as "matchedat", e."ticketid", e.ROWTIME as "entrytime"
    FROM GATE_IN_STREAM OVER (RANGE INTERVAL '2' MINUTE PRECEDING) AS e
      LEFT JOIN GATE_OUT_STREAM AS x
        ON e."ticketid" = x."ticketid";

