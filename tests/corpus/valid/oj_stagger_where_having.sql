-- A stagger window after WHERE, with HAVING after it, and the window in minutes and seconds
SELECT k, COUNT(*) AS n, MAX(ROWTIME) AS latest FROM t WHERE v > 0
WINDOWED BY STAGGER (PARTITION BY k, pmod(v, 2) RANGE INTERVAL '1:30' MINUTE TO SECOND)
HAVING COUNT(*) > 1
