-- found by the fuzzer: an unclosed WINDOW definition once made the JVM scanner read past the last token
SELECT MIN(price) OVER w AS lo, MAX(price) OVER w AS hi FROM bids WINDOW w AS (PARTITION BY ticker ORDER BY ts ROWS
