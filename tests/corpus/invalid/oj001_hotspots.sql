-- error: OJ001 4:74
-- HOTSPOTS needs no more points in a hotspot than its window holds
SELECT STREAM * FROM TABLE(HOTSPOTS(
  CURSOR(SELECT STREAM "x", "y" FROM "SOURCE_SQL_STREAM_001"), 100, 0.2, 170))
