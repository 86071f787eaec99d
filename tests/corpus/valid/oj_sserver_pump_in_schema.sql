-- s-Server: a pump named with its schema, reading and writing quoted schema names
CREATE OR REPLACE PUMP "ward-7.monitor-2"."pulse-pump" STOPPED AS
INSERT INTO "ward-7.archive"."pulse" ("bed", "bpm")
SELECT STREAM "bed", "bpm"
FROM "ward-7.monitor-2"."pulse"
WHERE "bpm" > 0
