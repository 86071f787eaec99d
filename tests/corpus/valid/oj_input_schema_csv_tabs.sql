-- CSV records with tab-separated fields, several rows a record, over a Firehose delivery stream.
CREATE OR REPLACE STREAM "LOGS_001" ("host" VARCHAR(64), "status" SMALLINT, "bytes" BIGINT)
  WITH (format = 'firehose', delivery_stream = 'access-logs', record_format = 'csv',
        record_row_delimiter = '\n', record_column_delimiter = '\t', shard_group = '1 of 2')
