-- s-Server: the current schema, named by a quoted identifier inside the string
SET SCHEMA '"Test"'
