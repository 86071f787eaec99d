-- s-Server's t-sort in a pump, a Lenses duration, and a LIMIT-free tail
CREATE OR REPLACE PUMP "sorter" STOPPED AS
INSERT INTO "pulse_in_order"
SELECT STREAM ROWTIME, "bed", "bpm" FROM "pulse" AS p ORDER BY p.ROWTIME ASC WITHIN 500ms
