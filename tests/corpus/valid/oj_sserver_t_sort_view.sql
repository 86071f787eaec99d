-- s-Server's t-sort: a view in a quoted schema that sorts readings arriving up to a second late
CREATE OR REPLACE VIEW "ward-7.monitor-2"."pulse_sorted" AS
    SELECT STREAM *
    FROM "ward-7.monitor-2"."pulse"
    ORDER BY "ROWTIME" WITHIN INTERVAL '1' SECOND
