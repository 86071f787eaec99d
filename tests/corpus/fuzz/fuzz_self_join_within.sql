-- found by the fuzzer: a stream joined with itself once made the validator take the two inputs for one
SELECT STREAM * FROM customers LEFT JOIN customers AS c2 WITHIN 5s ON customers.id = c2.id
