-- s-Server: a schema with its streams, views and pumps
DROP SCHEMA "ward-7.monitor-2" CASCADE
