-- error: OJ001 3:75
CREATE FOREIGN STREAM "pulse_files" ("bed" VARCHAR(8), "bpm" INTEGER)
SERVER "FILE_SERVER" OPTIONS ("DIRECTORY" '/var/spool/monitors', "PARSER" 'XML')
