-- seed 003: EXPLAIN of a temporal join over a table named stream
EXPLAIN CREATE VIEW mv1 AS
select id1, a1, id2, a2 from stream, version FOR SYSTEM_TIME AS OF PROCTIME() where id1 = id2 AND a2 < 10
