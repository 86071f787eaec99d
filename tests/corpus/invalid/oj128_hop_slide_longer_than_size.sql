-- error: OJ128 4:46
-- HOP takes the slide, then the size: written the other way round the windows leave gaps
SELECT STREAM COUNT(*) AS c
FROM Orders GROUP BY productId, HOP(rowtime, INTERVAL '3' HOUR, INTERVAL '1' HOUR)
