-- plain Spark SQL
SELECT * FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '1' MINUTE AND b.ts
