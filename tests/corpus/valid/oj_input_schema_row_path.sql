-- Rows are the elements of an array (KDA's RecordRowPath), mappings under each element.
CREATE STREAM "READINGS_001" ("sensor" VARCHAR(16) MAPPING '$.records[0:].id', "value" DOUBLE MAPPING '$.records[0:].v')
  WITH (format = 'json', path = '/data/readings', record_row_path = '$.records[0:]')
