CREATE OR REPLACE SCHEMA "Fleet";
SET SCHEMA '"Fleet"';

CREATE OR REPLACE STREAM "RawPositions" (
"vehicle_id" VARCHAR(16),
"driver_id" VARCHAR(16),
"gps_region" VARCHAR(24),
"route_code" VARCHAR(16),
"speed_kmh" INTEGER,
"lat" DOUBLE,
"lon" DOUBLE)
DESCRIPTION 'Positions as the trackers send them';

CREATE OR REPLACE STREAM "Positions" (
"vehicle_id" VARCHAR(16),
"driver_id" VARCHAR(16),
"region" VARCHAR(24),
"route_code" VARCHAR(16),
"speed_kmh" INTEGER,
"lat" DOUBLE,
"lon" DOUBLE)
DESCRIPTION 'Positions for the dispatch screens, region renamed';

-- Created stopped: dispatch starts it with ALTER PUMP once the screens are up.
CREATE OR REPLACE PUMP "100-DispatchPositionsPump" STOPPED AS
INSERT INTO "Positions" (

"vehicle_id", "driver_id", "region",
"route_code", "speed_kmh", "lat", "lon")

SELECT STREAM
"vehicle_id", "driver_id", "gps_region",
"route_code", "speed_kmh", "lat", "lon"
FROM "RawPositions";
