-- plain Spark SQL
ALTER TABLE t RENAME TO u
