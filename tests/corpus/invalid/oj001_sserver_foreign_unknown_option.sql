-- error: OJ001 5:5
CREATE FOREIGN STREAM "pulse_files" ("bed" VARCHAR(8), "bpm" INTEGER)
SERVER "FILE_SERVER"
OPTIONS ("DIRECTORY" '/var/spool/monitors', "PARSER" 'CSV',
    "STATIC_FILES" 'true')
