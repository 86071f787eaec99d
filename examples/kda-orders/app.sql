-- A Kinesis-Data-Analytics-style application for `overjoin server` (see README.md here).
-- ${DATA} is replaced by run.sh with the folder the input files arrive in.

-- Source streams: files arriving in folders stand in for the Kinesis/Firehose sources.
CREATE OR REPLACE STREAM orders (ROWTIME TIMESTAMP, orderId INT, productId INT, qty INT)
  DESCRIPTION 'orders as they are placed'
  WITH (format = 'json', path = '${DATA}/orders');
CREATE OR REPLACE STREAM shipments (ROWTIME TIMESTAMP, orderId INT, warehouse STRING)
  WITH (format = 'json', path = '${DATA}/shipments');

-- Reference data: a table (KDA's reference data source).
CREATE TABLE IF NOT EXISTS products (productId INT, name STRING, price DOUBLE)
  USING csv OPTIONS (path '${DATA}/products', header 'true');

-- Destination streams (durable, with an implicit ROWTIME).
CREATE OR REPLACE STREAM fast_shipments (orderId INT, product STRING, warehouse STRING, orderTime TIMESTAMP);
CREATE OR REPLACE STREAM big_fast_shipments (orderId INT, product STRING, amount DOUBLE);

-- Pump 1: the windowed join. A shipment within an hour of its order; the reference table names
-- the product. ROWTIME of each row = the join's ROWTIME (the shipment's).
CREATE OR REPLACE PUMP fast_pump AS
  INSERT INTO fast_shipments (orderId, product, warehouse, orderTime)
  SELECT STREAM ROWTIME, o.orderId, p.name, s.warehouse, o.ROWTIME AS orderTime
  FROM STREAM shipments AS s
  JOIN STREAM orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
    ON o.orderId = s.orderId
  JOIN products AS p
    ON p.productId = o.productId;

-- Pump 2, chained: reads the stream pump 1 writes (and the reference table again).
CREATE OR REPLACE PUMP big_pump AS
  INSERT INTO big_fast_shipments
  SELECT STREAM f.ROWTIME, f.orderId, f.product, p.price * 10
  FROM STREAM fast_shipments AS f
  JOIN products AS p ON p.name = f.product
  WHERE p.price >= 5;

-- Pump 3: KDA's tumbling window, written as KDA writes it: shipments per warehouse and hour.
-- The query does not select ROWTIME: each row gets its window's end. `FROM "shipments"` without
-- the STREAM keyword: SELECT STREAM reads a declared stream as a stream.
CREATE OR REPLACE STREAM "SHIPMENTS_PER_HOUR" ("warehouse" VARCHAR(16), "shipments" BIGINT);
CREATE OR REPLACE PUMP "HOURLY_PUMP" AS
  INSERT INTO "SHIPMENTS_PER_HOUR"
  SELECT STREAM "warehouse", COUNT(*) AS "shipments"
  FROM "shipments"
  GROUP BY "warehouse", STEP("shipments".ROWTIME BY INTERVAL '1' HOUR);

SHOW PUMPS;
