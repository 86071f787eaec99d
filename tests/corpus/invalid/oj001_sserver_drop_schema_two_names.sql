-- error: OJ001 2:31
DROP SCHEMA "ward-7.monitor-2"."pulse" CASCADE
