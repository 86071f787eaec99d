-- error: OJ001 2:19
CREATE OR REPLACE SERVER "Orders_DB" FOREIGN DATA WRAPPER "SYS_JDBC"
OPTIONS (
    "URL" 'jdbc:postgresql://db.internal/orders',
    "USER_NAME" 'reader'
)
DESCRIPTION 'the orders database'
