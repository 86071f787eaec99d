-- error: OJ125 3:40
CREATE STREAM "ORDERS_001" (
    "item" VARCHAR(32) MAPPING '$.items[1].sku')
  WITH (format = 'kinesis', stream = 'orders')
