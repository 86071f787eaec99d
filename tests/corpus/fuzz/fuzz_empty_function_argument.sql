-- found by the fuzzer: sqlglot raised ValueError on a function call with a keyword for an argument
SELECT date_trunc(AS, ts) 'HOUR' h, count(*)  n FROM t GROUP BY 1
