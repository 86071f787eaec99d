-- an outer join keeping a partitioned ROWS window: its padded rows come out once the window closes (docs/semantics.md §8)
SELECT STREAM * FROM a OVER (PARTITION BY k ROWS 2 PRECEDING) AS x LEFT JOIN b OVER (RANGE 5s PRECEDING) AS y ON x.k = y.k
