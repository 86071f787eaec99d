CREATE OR REPLACE SCHEMA "Test";
SET SCHEMA '"Test"';

CREATE OR REPLACE STREAM "OrderDataWithCreateTime" (
"key_order" VARCHAR(20),
"key_user" VARCHAR(20),
"key_billing_country" VARCHAR(20),
"key_product" VARCHAR(20),
"quantity" INTEGER,
"eur" DOUBLE,
"usd" DOUBLE)
DESCRIPTION 'Creates origin stream for pump';

CREATE OR REPLACE STREAM "OrderData" (
"key_order" VARCHAR(20),
"key_user" VARCHAR(20),
"country" VARCHAR(20),
"key_product" VARCHAR(20),
"quantity" INTEGER,
"eur" DOUBLE,
"usd" DOUBLE)
DESCRIPTION 'Creates destination stream for pump';

CREATE OR REPLACE PUMP "200-ConditionedOrdersPump" STOPPED AS
INSERT INTO "OrderData" (

"key_order", "key_user", "country",
"key_product", "quantity", "eur", "usd")

SELECT STREAM
"key_order", "key_user", "key_billing_country",
"key_product", "quantity", "eur", "usd"
FROM "OrderDataWithCreateTime";
