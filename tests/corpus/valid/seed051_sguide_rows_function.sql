-- seed 004: a WINDOW used by window functions only stays Spark's, FOLLOWING included (trailing comma typo fixed)
-- options: double_quoted_identifiers
SELECT STREAM
ticker,
MIN("price") OVER w AS PriceMin,
MAX("price") OVER w AS PriceMax
FROM sales.bids
WINDOW w AS (ROWS BETWEEN 3 PRECEDING AND 0 FOLLOWING)
