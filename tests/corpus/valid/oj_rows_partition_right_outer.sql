-- an outer join keeping a partitioned ROWS window: its padded rows come out once the window closes (docs/semantics.md §8)
SELECT STREAM * FROM a OVER (RANGE 5s PRECEDING) AS x RIGHT OUTER JOIN b OVER (PARTITION BY k ROWS CURRENT ROW) AS y ON x.k = y.k
