-- error: OJ125 3:99
CREATE FOREIGN STREAM "alarms" ("bed" VARCHAR(8))
SERVER "FILE_SERVER" OPTIONS ("DIRECTORY" '/var/spool/alarms', "PARSER" 'JSON', "bed_PATH" '$.beds[2]')
