-- seed 004: window after the alias
-- options: double_quoted_identifiers
SELECT STREAM
      LF."accountNumber",
      "loginFailureCount",
      "transactionType",
       "amount"
 FROM "SuspectLoginFailures" AS LF
 JOIN "Transactions" AS TX
                   OVER (RANGE INTERVAL '1' MINUTE PRECEDING)
                   ON LF."accountNumber" = TX."accountNumber"
WHERE ("transactionType" = 'isDebit')
