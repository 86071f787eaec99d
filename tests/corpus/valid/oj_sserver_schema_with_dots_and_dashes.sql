-- s-Server: a schema whose name holds dots and dashes (its database is the escaped form)
CREATE OR REPLACE SCHEMA "ward-7.monitor-2" DESCRIPTION 'bedside monitors of ward 7'
