-- error: OJ001 3:4
CREATE OR REPLACE PUMP "Shop"."upsert-tiers" STOPPED AS
   MERGE INTO "Shop"."Customers" AS "t"
   USING (SELECT STREAM * FROM "Shop"."TierChanges") AS "s"
   ON "t"."customer_id" = "s"."customer_id"
   WHEN MATCHED THEN UPDATE SET "tier" = "s"."tier"
