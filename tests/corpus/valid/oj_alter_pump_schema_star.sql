-- s-Server: every pump of a schema
ALTER PUMP "Test".* STOP
