-- error: OJ001 2:19
CREATE OR REPLACE FOREIGN TABLE "Shop"."Customers" (
    "customer_id" INTEGER,
    "tier" VARCHAR(8))
SERVER "Orders_DB"
OPTIONS (SCHEMA_NAME 'public', TABLE_NAME 'customers')
