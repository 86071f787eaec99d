-- found by the fuzzer: the validator printed an overjoin node with sqlglot's default dialect
SELECT STREAM * FROM FROM a OVER (RANGE 1m PRECEDING) AS x CROSS JOIN b ORDER  USING (k)
