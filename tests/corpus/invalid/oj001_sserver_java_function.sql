-- error: OJ001 2:19
CREATE OR REPLACE FUNCTION "Shop"."dedupe"(inputRows CURSOR, "windowSeconds" INTEGER)
RETURNS TABLE(inputRows.*)
LANGUAGE JAVA
PARAMETER STYLE SYSTEM DEFINED JAVA
NO SQL
EXTERNAL NAME '"Shop"."ShopUdx":com.example.shop.Dedupe.run'
