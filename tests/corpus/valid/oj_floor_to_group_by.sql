-- s-Server's FLOOR(ROWTIME TO unit) in GROUP BY, without SELECT STREAM: the call makes the block overjoin's
SELECT ticker, COUNT(*) FROM trades GROUP BY ticker, FLOOR(trades.ROWTIME TO HOUR)
