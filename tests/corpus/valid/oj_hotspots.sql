-- KDA's HOTSPOTS, written over several lines as its users write it: each row with the hotspots of
-- the last 1000 rows' points
SELECT STREAM * FROM TABLE(HOTSPOTS(
  CURSOR(SELECT STREAM "x", "y" FROM "SOURCE_SQL_STREAM_001"), 1000, 0.2, 17))
