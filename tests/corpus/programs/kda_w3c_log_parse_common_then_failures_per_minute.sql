-- Access log lines from the web tier, one per record: parse each into its fields,
-- then count the failed requests per status and minute.
CREATE OR REPLACE STREAM "ACCESS_LOG_STREAM" (
	"client_host"	VARCHAR(32),
	"client_user"	VARCHAR(32),
	"logged_at"	VARCHAR(32),
	"request_line"	VARCHAR(256),
	"status_code"	VARCHAR(4),
	"response_bytes"	VARCHAR(16));

CREATE OR REPLACE PUMP "ACCESS_LOG_PUMP" AS 
INSERT INTO "ACCESS_LOG_STREAM"
        SELECT STREAM
            w.logrow.COLUMN1,
            w.logrow.COLUMN3,
            w.logrow.COLUMN4,
            w.logrow.COLUMN5,
            w.logrow.COLUMN6,
            w.logrow.COLUMN7
        FROM (SELECT STREAM W3C_LOG_PARSE("access_line", 'COMMON')
              FROM "SOURCE_SQL_STREAM_001") AS w(logrow);

CREATE OR REPLACE STREAM "FAILED_REQUESTS_STREAM" ("status_code" VARCHAR(4), "failures" INTEGER);

CREATE OR REPLACE PUMP "FAILED_REQUESTS_PUMP" AS INSERT INTO "FAILED_REQUESTS_STREAM"
    SELECT STREAM "status_code", COUNT(*)
    FROM "ACCESS_LOG_STREAM"
    WHERE "status_code" >= '400'
    GROUP BY "status_code", STEP("ACCESS_LOG_STREAM".ROWTIME BY INTERVAL '60' SECOND);
