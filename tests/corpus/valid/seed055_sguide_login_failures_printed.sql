-- seed 004: the login-failures query exactly as printed, without spark.sql.ansi.doubleQuotedIdentifiers
SELECT STREAM
      LF."accountNumber",
      "loginFailureCount",
      "transactionType",
       "amount"
 FROM "SuspectLoginFailures" AS LF
 JOIN "Transactions" AS TX
                   OVER (RANGE INTERVAL '1' MINUTE PRECEDING)
                   ON LF."accountNumber" = TX."accountNumber"
WHERE ("transactionType" = 'isDebit');
