-- error: OJ125 2:32
CREATE STREAM "S_001" ("a" INT MAPPING, "b" INT) WITH (format = 'kinesis', stream = 's')
