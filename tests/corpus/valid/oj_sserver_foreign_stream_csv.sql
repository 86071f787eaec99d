-- s-Server: a foreign stream over the file reader, CSV files with a header line
CREATE OR REPLACE FOREIGN STREAM "ward-7.monitor-2"."pulse_files" (
    "bed" VARCHAR(8),
    "bpm" INTEGER
)
SERVER "FILE_SERVER"
OPTIONS (
    "DIRECTORY" '/var/spool/monitors',
    "FILENAME_PATTERN" 'pulse-[0-9]+\.csv',
    "PARSER" 'CSV',
    "SEPARATOR" ';',
    "SKIP_HEADER" 'true',
    "CHARACTER_ENCODING" 'UTF-8'
)
DESCRIPTION 'readings dropped by the monitors'
