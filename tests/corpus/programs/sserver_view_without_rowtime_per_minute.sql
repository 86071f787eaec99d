CREATE OR REPLACE SCHEMA "Kiosks";
SET SCHEMA '"Kiosks"';

CREATE OR REPLACE STREAM "Taps" (
"kiosk_id" VARCHAR(8),
"card_kind" VARCHAR(12),
"amount_cents" INTEGER)
DESCRIPTION 'Card taps at the ticket kiosks, refunds as negative amounts';

-- Paid taps only. The view names the columns the counts need, and no ROWTIME:
-- its rows keep the ROWTIME of the taps they come from.
CREATE OR REPLACE VIEW "PaidTaps" AS
SELECT STREAM "kiosk_id", "amount_cents"
FROM "Taps"
WHERE "amount_cents" > 0;

CREATE OR REPLACE STREAM "PaidPerMinute" (
"kiosk_id" VARCHAR(8),
"taps" BIGINT,
"cents" BIGINT)
DESCRIPTION 'Paid taps per kiosk and minute';

CREATE OR REPLACE PUMP "200-PaidPerMinutePump" STOPPED AS
INSERT INTO "PaidPerMinute"
SELECT STREAM "kiosk_id", COUNT(*), SUM("amount_cents")
FROM "PaidTaps" AS p
GROUP BY FLOOR(p.ROWTIME TO MINUTE), "kiosk_id";
