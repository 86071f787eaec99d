-- plain Spark SQL: here "..." is a string, as Spark reads it, because no block is in the streaming dialect
SELECT "accountNumber" AS label, concat("a", 'b') AS ab, "x" = "x" AS same FROM t WHERE name <> "ROWTIME"
