-- seed 004: the named-window login-failures query exactly as printed, without the Spark option
SELECT STREAM
      "SuspectLoginFailures"."accountNumber",
      "loginFailureCount",
      "transactionType",
      "amount"
 FROM "SuspectLoginFailures"  OVER "lastFew"
 JOIN "Transactions" OVER "lastFew"
        ON "SuspectLoginFailures"."accountNumber" = "Transactions"."accountNumber"
WHERE ("transactionType" = 'isDebit')
WINDOW "lastFew" AS (RANGE INTERVAL '1' MINUTE PRECEDING);
