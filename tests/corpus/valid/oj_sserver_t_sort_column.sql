-- s-Server's t-sort on an event time: the column sorted by is the rows' ROWTIME, ties by bed
SELECT STREAM "measuredAt" AS ROWTIME, "bed", "bpm"
FROM "pulse"
ORDER BY "measuredAt" WITHIN INTERVAL '2' MINUTE, "bed"
