-- one WINDOW clause with a join window and a sliding window; a named window no call uses is read as one too
SELECT STREAM ROWTIME, o.id, COUNT(*) OVER w1 AS n
FROM orders AS o JOIN shipments OVER j AS s ON o.id = s.id
WINDOW j AS (RANGE INTERVAL '1' HOUR PRECEDING), w1 AS (PARTITION BY o.id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
       spare AS (RANGE INTERVAL '10' SECOND PRECEDING)
