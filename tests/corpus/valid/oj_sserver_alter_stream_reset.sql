-- s-Server: one stream of a schema, and every stream of another
ALTER STREAM "ward-7.monitor-2"."pulse", "ward-7.archive".* RESET
