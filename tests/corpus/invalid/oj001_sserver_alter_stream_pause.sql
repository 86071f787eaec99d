-- error: OJ001 2:41
ALTER STREAM "ward-7.monitor-2"."pulse" PAUSE
