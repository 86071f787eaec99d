-- an outer join keeping a partitioned ROWS window: its padded rows come out once the window closes (docs/semantics.md §8)
SELECT STREAM * FROM STREAM a AS x FULL JOIN b OVER (PARTITION BY k ROWS 1 PRECEDING) AS y ON x.k = y.k
