-- The kda-orders application with Kinesis data streams in and out (see README.md here).
-- ${ENDPOINT} is replaced by run.sh with the Kinesis endpoint (moto's server on loopback); against
-- AWS, drop the endpoint option and give the region.

-- Source streams over Kinesis data streams: each record a JSON object with the columns (and
-- ROWTIME, the event's time, declared here so that the records' own field is the rowtime).
CREATE OR REPLACE STREAM orders (ROWTIME TIMESTAMP, orderId INT, productId INT, qty INT)
  DESCRIPTION 'orders as they are placed'
  WITH (format = 'kinesis', stream = 'orders', region = 'us-east-1', endpoint = '${ENDPOINT}',
        starting_position = 'TRIM_HORIZON');
CREATE OR REPLACE STREAM shipments (ROWTIME TIMESTAMP, orderId INT, warehouse STRING)
  WITH (format = 'kinesis', stream = 'shipments', region = 'us-east-1', endpoint = '${ENDPOINT}',
        starting_position = 'TRIM_HORIZON');

-- Reference data: a table (KDA's reference data source).
CREATE TABLE IF NOT EXISTS products (productId INT, name STRING, price DOUBLE)
  USING csv OPTIONS (path '${DATA}/products', header 'true');

-- Destination streams over Kinesis data streams: a pump's rows become JSON records (at least once),
-- keyed by the warehouse.
CREATE OR REPLACE STREAM fast_shipments (ROWTIME TIMESTAMP, orderId INT, product STRING, warehouse STRING, orderTime TIMESTAMP)
  WITH (format = 'kinesis', stream = 'fast_shipments', region = 'us-east-1', endpoint = '${ENDPOINT}',
        partition_key = 'warehouse');
CREATE OR REPLACE STREAM "SHIPMENTS_PER_HOUR" (ROWTIME TIMESTAMP, "warehouse" VARCHAR(16), "shipments" BIGINT)
  WITH (format = 'kinesis', stream = 'shipments_per_hour', region = 'us-east-1', endpoint = '${ENDPOINT}',
        partition_key = 'warehouse');

-- Pump 1: the windowed join, into a Kinesis stream. ROWTIME = the join's (the shipment's).
CREATE OR REPLACE PUMP fast_pump AS
  INSERT INTO fast_shipments (orderId, product, warehouse, orderTime)
  SELECT STREAM ROWTIME, o.orderId, p.name, s.warehouse, o.ROWTIME AS orderTime
  FROM STREAM shipments AS s
  JOIN STREAM orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
    ON o.orderId = s.orderId
  JOIN products AS p
    ON p.productId = o.productId;

-- Pump 2: KDA's tumbling window, as KDA writes it, into a Kinesis stream; ROWTIME = the hour's end.
CREATE OR REPLACE PUMP "HOURLY_PUMP" AS
  INSERT INTO "SHIPMENTS_PER_HOUR"
  SELECT STREAM "warehouse", COUNT(*) AS "shipments"
  FROM "shipments"
  GROUP BY "warehouse", STEP("shipments".ROWTIME BY INTERVAL '1' HOUR);

SHOW PUMPS;
