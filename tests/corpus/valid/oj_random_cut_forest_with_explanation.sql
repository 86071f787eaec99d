-- KDA's anomaly score with each numeric column's part of it:
-- TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(CURSOR(query), trees, sample, decay, shingle, withDirectionality))
SELECT STREAM r."heartRate", r.ANOMALY_SCORE, r.ANOMALY_EXPLANATION
FROM TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(
    CURSOR(SELECT STREAM * FROM "SOURCE_SQL_STREAM_001"), -- inputStream
    100, 256, 100000, 1, TRUE)) AS r
WHERE r.ANOMALY_SCORE > 2
