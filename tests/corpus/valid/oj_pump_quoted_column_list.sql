-- KDA: a column list of quoted names over several lines, tab-indented
CREATE OR REPLACE PUMP "ORDERPUMP" AS 
INSERT INTO "ORDERSTREAM" (
						  "orderId", 
                          "recordType"
                    	  ) 
SELECT STREAM 
			  "orderId", 
              "recordType"
FROM "SOURCE_SQL_STREAM_001" where "recordType" = 'Order'
