-- seed 003: ASOF LEFT JOIN syntax
SELECT A.field1 AS A_field1
FROM TableA AS A ASOF LEFT JOIN TableB AS B
ON A.field1 = B.field1 AND A.field2 <= B.field2
