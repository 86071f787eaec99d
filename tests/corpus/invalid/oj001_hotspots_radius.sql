-- error: OJ001 4:70
-- HOTSPOTS' scan radius is a number, in the columns' own units
SELECT STREAM * FROM TABLE(HOTSPOTS(
  CURSOR(SELECT STREAM "x", "y" FROM "SOURCE_SQL_STREAM_001"), 1000, 'wide', 17))
