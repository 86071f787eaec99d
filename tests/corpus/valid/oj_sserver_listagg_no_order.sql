-- s-Server's LISTAGG without WITHIN GROUP, and with the default separator, per ten-second step
SELECT STREAM "bed", LISTAGG("note", ';') AS "all_notes", LISTAGG("note") AS "joined"
FROM "notes"
GROUP BY "bed", STEP("notes".ROWTIME BY INTERVAL '10' SECOND)
