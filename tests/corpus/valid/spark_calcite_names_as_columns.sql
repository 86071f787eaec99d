-- Columns and a struct field named like Calcite's window functions, Spark's own ceil: plain Spark SQL
SELECT tumble, hop, session_end, s.tumble_start, ceil(hop / 2), ceiling(2.5)
FROM (SELECT 1 AS tumble, 3 AS hop, 4 AS session_end, named_struct('tumble_start', 5) AS s) AS x
