-- error: OJ125 3:88
CREATE STREAM "LOGS_001" ("host" VARCHAR(64))
  WITH (format = 'kinesis', stream = 'logs', record_format = 'csv', record_row_path = '$')
