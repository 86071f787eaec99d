-- error: OJ001 3:65
-- the template window's difference is from a TIMESTAMP literal, the origin of the windows
SELECT STREAM k, COUNT(*) FROM s GROUP BY k, FLOOR((s.ROWTIME - s.created) SECOND / 10 TO SECOND)
