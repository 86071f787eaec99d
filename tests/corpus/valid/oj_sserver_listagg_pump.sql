-- s-Server's LISTAGG in a pump's tumbling aggregate: one row per bed and minute, its notes in order
CREATE OR REPLACE PUMP "gather" STOPPED AS
INSERT INTO "notes_per_minute" ("bed", "notes")
SELECT STREAM "bed", LISTAGG("note", ' | ') WITHIN GROUP (ORDER BY "note")
FROM "notes"
GROUP BY "bed", FLOOR("notes".ROWTIME TO MINUTE)
