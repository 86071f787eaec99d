-- Hotel events: stays and the room charges booked against them arrive in one
-- stream; split them, name each charge's service from the "services" table,
-- then pair every charge with its stay.
CREATE OR REPLACE STREAM "STAYSTREAM"(
   "stayId" INTEGER, 
   "nightlyRate" DECIMAL(6,2),
   "stayStatus" VARCHAR(10),
   "checkInDate" TIMESTAMP,
   "guestName" VARCHAR(32),
   "roomNumber" VARCHAR(8),
   "hotelCity" VARCHAR(32),
   "recordKind" VARCHAR(16));
   
CREATE OR REPLACE STREAM "CHARGESTREAM"(
   "stayId" INTEGER, 
   "serviceId" INTEGER, 
   "chargeAmount" DECIMAL(6,2),
   "chargeStatus" VARCHAR(10),
   "chargeUnits" INTEGER, 
   "checkInDate" TIMESTAMP,
   "recordKind" VARCHAR(16),
   "serviceName"VARCHAR(32));
   
CREATE OR REPLACE STREAM "STAY_CHARGE_ENRICHED_STREAM"(
   "charge_ts" TIMESTAMP,
   "stayId" INTEGER, 
   "nightlyRate" DECIMAL(6,2),
   "stayStatus" VARCHAR(10),
   "checkInDate" TIMESTAMP,
   "guestName" VARCHAR(32),
   "roomNumber" VARCHAR(8),
   "hotelCity" VARCHAR(32),
    "serviceId" INTEGER, 
   "chargeAmount" DECIMAL(6,2),
    "chargeUnits" INTEGER, 
   "chargeStatus" VARCHAR(10),
   "serviceName" VARCHAR(32) 
   );
   
   
   
CREATE OR REPLACE PUMP "STAYPUMP" AS 
INSERT INTO "STAYSTREAM" (
						  "stayId", 
                          "nightlyRate", 
                          "stayStatus",
                          "checkInDate",
                          "guestName",
                          "roomNumber",
                          "hotelCity",
                          "recordKind"
                    	  ) 
SELECT STREAM 
			  "stayId", 
              "nightlyRate", 
              "stayStatus",
              "checkInDate",
              "guestName",
              "roomNumber",
              "hotelCity",
              "recordKind"
FROM "HOTEL_SQL_STREAM_001" where "recordKind" = 'Stay';

-- A charge's service may be missing from the table: keep the charge anyway.
CREATE OR REPLACE PUMP "CHARGEPUMP" AS 
INSERT INTO "CHARGESTREAM" (
						  "stayId", 
						  "serviceId",
                          "chargeAmount", 
                          "chargeUnits",
                          "chargeStatus",
                          "recordKind",
                          "serviceName"
                    	  ) 
SELECT STREAM 
			  h."stayId", 
			  h."serviceId",
              h."chargeAmount", 
              h."chargeUnits",
              h."chargeStatus",
              h."recordKind",
              svc."serviceName"
FROM "HOTEL_SQL_STREAM_001" AS h
LEFT JOIN "services" AS svc
ON h."serviceId" = svc."serviceId"
where h."recordKind" = 'Charge';


CREATE OR REPLACE PUMP "STAY_CHARGE_ENRICHED_PUMP" AS 
INSERT INTO "STAY_CHARGE_ENRICHED_STREAM" (
                          "charge_ts",
						  "stayId", 
						  "nightlyRate", 
			              "stayStatus",
			              "checkInDate",
			              "guestName",
			              "roomNumber",
			              "hotelCity",
						  "serviceId",
                          "chargeAmount", 
                          "chargeUnits",
                          "chargeStatus",
                          "serviceName"
                    	  ) 

SELECT STREAM
     ROWTIME,
     st."stayId", st."nightlyRate", st."stayStatus", st."checkInDate", st."guestName",st."roomNumber", st."hotelCity", 
     ch."serviceId", ch."chargeAmount", ch."chargeUnits", ch."chargeStatus", ch."serviceName"
FROM CHARGESTREAM OVER (RANGE INTERVAL '10' MINUTE PRECEDING)  AS ch
JOIN STAYSTREAM OVER (RANGE INTERVAL '10' MINUTE PRECEDING)  AS st
ON   ch."stayId" = st."stayId";
