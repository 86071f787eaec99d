-- seed 004: the MatchBidsAndAsks view with a WINDOW alias, exactly as printed (")AS A" included)
CREATE OR REPLACE VIEW "MatchBidsAndAsks"
DESCRIPTION 'match bids and asks for each ticker over a 10-second time window' AS
SELECT STREAM
 B.ROWTIME AS "bidTime",
 A.ROWTIME AS "askTime",
 B."ticker",
 B."shares" AS "bidShares",
 B."price" AS "bidPrice",
 A."shares" AS "askShares",
 A."price" AS "askPrice"
FROM SALES.BIDS OVER "lastTenSeconds" AS B
JOIN SALES.ASKS OVER (ROWS CURRENT ROW)AS A ON A."ticker" = B."ticker"
 AND A."shares" = B."shares"
 AND A."price" = B."price"
WINDOW "lastTenSeconds" AS (RANGE INTERVAL '10' SECOND PRECEDING);
