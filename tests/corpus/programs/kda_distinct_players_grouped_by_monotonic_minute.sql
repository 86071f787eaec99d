-- Game servers send one record per player action, stamped with the server's own clock.
-- Players seen per minute of that clock, then the busy minutes.
CREATE STREAM "GAME_METRICS_STREAM"(
    MetricName VARCHAR(24),
    MinuteStartMillis BIGINT,
    PlayerCount BIGINT);

--Players per minute
CREATE OR REPLACE PUMP "PLAYERS_PER_MINUTE_PUMP" AS
INSERT INTO "GAME_METRICS_STREAM" ( MetricName, MinuteStartMillis, PlayerCount)
SELECT STREAM 'players_per_minute', UNIX_TIMESTAMP(actions.server_minute), COUNT(actions.player) FROM (
    SELECT STREAM DISTINCT
        monotonic (STEP (CHAR_TO_TIMESTAMP('yyyy-MM-dd HH:mm:ss',"SOURCE_SQL_STREAM_001"."server_clock") by INTERVAL '60' SECOND)) AS server_minute,
        STEP ("SOURCE_SQL_STREAM_001".ROWTIME BY INTERVAL '60' SECOND),
        "SOURCE_SQL_STREAM_001"."player_id" as player
    FROM "SOURCE_SQL_STREAM_001") as actions
    GROUP BY
    server_minute;

--Busy minutes
CREATE STREAM "BUSY_MINUTES_STREAM"(
    MinuteStartMillis BIGINT,
    PlayerCount BIGINT);
CREATE OR REPLACE PUMP "BUSY_MINUTES_PUMP" AS
INSERT INTO "BUSY_MINUTES_STREAM" ( MinuteStartMillis, PlayerCount)
SELECT STREAM MinuteStartMillis, PlayerCount FROM "GAME_METRICS_STREAM"
WHERE PlayerCount >= 3;
