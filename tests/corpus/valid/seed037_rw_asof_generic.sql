-- seed 003: ASOF JOIN syntax (aliases A, B added)
SELECT A.field1 AS A_field1
FROM TableA AS A ASOF JOIN TableB AS B
ON A.field1 = B.field1 AND A.field2 <= B.field2
