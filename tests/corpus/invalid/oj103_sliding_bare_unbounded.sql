-- UNBOUNDED without PRECEDING is not Spark's UNBOUNDED PRECEDING: the join-window grammar refuses it
-- error: OJ103 3:37
SELECT STREAM k, SUM(v) OVER (RANGE UNBOUNDED) AS s FROM trades
