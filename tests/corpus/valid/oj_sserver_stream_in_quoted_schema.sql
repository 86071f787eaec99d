-- s-Server: a stream named with its schema, columns over several lines
CREATE OR REPLACE STREAM "ward-7.monitor-2"."pulse" (
    "bed" VARCHAR(8),
    "bpm" INTEGER
)
DESCRIPTION 'one row per reading'
