-- Forklift positions on the warehouse floor, in metres, one record per reading.
-- Where do they bunch up? Every reading goes out with the hotspots of the last 500.
CREATE OR REPLACE STREAM "CONGESTION_STREAM" (
    "aisle_x" DOUBLE, 
    "aisle_y" DOUBLE, 
    "forklift" VARCHAR(8),
    HOTSPOTS_RESULT VARCHAR(10000)
); 
CREATE OR REPLACE PUMP "CONGESTION_PUMP" AS 
    INSERT INTO "CONGESTION_STREAM" 
    SELECT "aisle_x", "aisle_y", "forklift", "HOTSPOTS_RESULT" 
    FROM TABLE (
        HOTSPOTS(   
            CURSOR(SELECT STREAM "aisle_x", "aisle_y", "forklift" FROM "SOURCE_SQL_STREAM_001"), 
            500, 
            1.5, 
            12)
    );
