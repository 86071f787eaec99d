-- s-Server: a path of two schemas, one quoted, one not
SET PATH '"ward-7.monitor-2", archive'
