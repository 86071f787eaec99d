-- s-Server: a list of pumps, one by name, the others by schema
ALTER PUMP "ward-7.monitor-2"."pulse-pump", "ward-7.archive".* START
