-- error: OJ001 2:10
SET PATH '"ward-7.monitor-2",'
