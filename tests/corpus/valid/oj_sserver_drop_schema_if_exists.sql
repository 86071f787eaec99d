-- s-Server: an empty schema, if there is one
DROP SCHEMA IF EXISTS "ward-7.monitor-2" RESTRICT
