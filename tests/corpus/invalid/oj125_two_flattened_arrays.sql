-- error: OJ125 4:36
CREATE STREAM "ORDERS_001" (
    "sku"     VARCHAR(32) MAPPING '$.items[0:].sku',
    "coupon"  VARCHAR(32) MAPPING '$.coupons[0:].code')
  WITH (format = 'kinesis', stream = 'orders')
