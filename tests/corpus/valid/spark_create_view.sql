-- plain Spark SQL
CREATE VIEW v2 AS SELECT id, ts FROM events WHERE id > 10
