-- A KDA input schema on a Kinesis source: mappings that differ from the names, nested paths, a
-- flattened array, the whole of an object into a VARCHAR, VARCHAR without a length.
CREATE OR REPLACE STREAM "SOURCE_SQL_STREAM_001" (
	"ticker"     VARCHAR(8)   MAPPING '$.trade.symbol',
	"price"      DECIMAL(8,2) MAPPING '$.trade.price',
	"venue"      VARCHAR      MAPPING '$.fills[0:].venue',
	"raw_fills"  VARCHAR(2048) MAPPING '$.fills[0:]',
	"meta"       VARCHAR(512) MAPPING '$.meta',
	"SEEN_AT"    TIMESTAMP    MAPPING '$.seen_at')
WITH (format = 'kinesis', stream = 'trades', record_format = 'json', record_row_path = '$', record_encoding = 'UTF-8')
