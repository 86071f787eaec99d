-- s-Server: where unqualified routines are looked up
SET PATH '"ward-7.monitor-2"'
