-- KDA's anomaly score: TABLE(RANDOM_CUT_FOREST(CURSOR(query), trees, sample, decay, shingle)), read by a
-- streaming block, then sorted within each second by score (KDA's streaming ORDER BY)
SELECT STREAM r.ROWTIME, r."heartRate", r.ANOMALY_SCORE
FROM TABLE(RANDOM_CUT_FOREST(CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001"), 100, 256, 100000, 1)) AS r
WHERE r.ANOMALY_SCORE > 2
ORDER BY FLOOR(r.ROWTIME TO SECOND), r.ANOMALY_SCORE DESC
