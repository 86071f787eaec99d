-- Totals per customer, every minute (a ${placeholder} in a file is not interpolated).
CREATE OR REPLACE STREAM "TOTALS" ("customer" VARCHAR(64), "total" DECIMAL(12,2));
CREATE OR REPLACE PUMP "TOTALS_PUMP" AS
  INSERT INTO "TOTALS"
  SELECT STREAM "customer", SUM("amount")
  FROM "ORDERS_001"
  GROUP BY "customer", STEP("ORDERS_001".ROWTIME BY INTERVAL '1' MINUTE);
CREATE OR REPLACE STREAM "BIG_ORDERS" ("order_id" VARCHAR(36), "amount" DECIMAL(10,2));
CREATE OR REPLACE PUMP "BIG_PUMP" AS
  INSERT INTO "BIG_ORDERS" SELECT STREAM "order_id", "amount" FROM "ORDERS_001" WHERE "amount" > 1000;
