-- seed 002: the explicit form of Lenses' key-equality default (plain Spark SQL)
SELECT * FROM customers JOIN orders ON customers._key = orders._key
