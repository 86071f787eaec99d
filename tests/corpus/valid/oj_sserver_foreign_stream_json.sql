-- s-Server: a foreign stream over the file reader, JSON documents with paths per column
CREATE FOREIGN STREAM "alarms" ("bed" VARCHAR(8), "level" INTEGER, "note" VARCHAR(64))
SERVER FILE_SERVER
OPTIONS (DIRECTORY '/var/spool/alarms', PARSER 'JSON', ROW_PATH '$.alarms[0:]',
         "bed_PATH" '$.alarms[0:].where.bed', "level_PATH" '$.alarms[0:].level')
