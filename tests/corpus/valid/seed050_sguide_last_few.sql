-- seed 004: one named window for both inputs
-- options: double_quoted_identifiers
SELECT STREAM
      "SuspectLoginFailures"."accountNumber",
      "loginFailureCount",
      "transactionType",
      "amount"
 FROM "SuspectLoginFailures"  OVER "lastFew"
 JOIN "Transactions" OVER "lastFew"
        ON "SuspectLoginFailures"."accountNumber" = "Transactions"."accountNumber"
WHERE ("transactionType" = 'isDebit')
WINDOW "lastFew" AS (RANGE INTERVAL '1' MINUTE PRECEDING)
