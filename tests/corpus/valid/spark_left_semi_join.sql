-- plain Spark SQL
SELECT a.* FROM a LEFT SEMI JOIN b ON a.id = b.id
