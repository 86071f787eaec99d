-- error: OJ125 2:90
CREATE STREAM "S_001" ("a" INT) WITH (format = 'kinesis', stream = 's', record_format = 'avro')
