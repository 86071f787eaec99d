"""Stagger windows: KDA's ``WINDOWED BY STAGGER (PARTITION BY keys RANGE INTERVAL 'n' unit)``
(docs/semantics.md §13), against the developer guide's printed examples and the reference model,
over tables (replay) and as streams, in order, out of order, with late rows, and across a restart.

Per key, a window opens at the rowtime ``t0`` of a row that finds none open and holds the key's
rows with rowtime in ``[t0, t0 + n)``; its one row has ``ROWTIME = t0 + n`` and leaves a stream
once the watermark passes that end.
"""

from __future__ import annotations

import calendar
import itertools
import random
import tempfile
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import ParseException

from tests.reference_model import Row, stagger_windows, tumbling_groups, unit_floor
from tests.spark.errors import caret_column
from tests.spark.streams import make_stream, run_stream, setting

DAY = datetime(2018, 8, 1)
T0 = datetime(2024, 3, 30, 22, 0, 0)
SEC = timedelta(seconds=1)


def at(clock: str, micros: int = 0) -> datetime:
    h, mi, s = (int(x) for x in clock.split(":"))
    return DAY.replace(hour=h, minute=mi, second=s, microsecond=micros)


def rows_of(df: Any) -> list[tuple]:
    return sorted(tuple(r) for r in df.collect())


# ---- the developer guide's "Stagger Windows" page (research: kda_programs.md 3b) --------------

#: The page's stagger-window query (the SELECT of its pump), as printed.
CONCEPTS_STAGGER = """SELECT STREAM 
        TICKER_SYMBOL,
        FLOOR(EVENT_TIME TO MINUTE),
        COUNT(TICKER_SYMBOL) AS ticker_count
    FROM "SOURCE_SQL_STREAM_001"
    WINDOWED BY STAGGER (
            PARTITION BY FLOOR(EVENT_TIME TO MINUTE), TICKER_SYMBOL RANGE INTERVAL '1' MINUTE)"""  # noqa: W291 (as printed)

#: The page's tumbling-window query, which it compares with the stagger window, as printed.
CONCEPTS_TUMBLING = """SELECT STREAM 
        TICKER_SYMBOL,
        FLOOR(EVENT_TIME TO MINUTE),
        COUNT(TICKER_SYMBOL) AS TICKER_COUNT
    FROM "SOURCE_SQL_STREAM_001"
    GROUP BY ticker_symbol, FLOOR(EVENT_TIME TO MINUTE), STEP("SOURCE_SQL_STREAM_001".ROWTIME BY INTERVAL '1' MINUTE)"""  # noqa: W291 (as printed)

#: The page's events: (ROWTIME, EVENT_TIME, TICKER_SYMBOL).
CONCEPTS_EVENTS = [
    ("11:00:20", "11:00:10", "AMZN"),
    ("11:00:30", "11:00:20", "AMZN"),
    ("11:01:05", "11:00:55", "AMZN"),
    ("11:01:15", "11:01:05", "AMZN"),
]
#: The page's results, as printed: (ROWTIME, EVENT_TIME, TICKER_SYMBOL, COUNT).
CONCEPTS_STAGGER_RESULT = [("11:01:20", "11:00:00", "AMZN", 3), ("11:02:15", "11:01:00", "AMZN", 1)]
CONCEPTS_TUMBLING_RESULT = [
    ("11:01:00", "11:00:00", "AMZN", 2),
    ("11:02:00", "11:00:00", "AMZN", 1),
    ("11:02:00", "11:01:00", "AMZN", 1),
]


def with_rowtime(select: str) -> str:
    """The query with ``ROWTIME`` first in its select list: the column the page's pump fills."""
    return select.replace("SELECT STREAM ", "SELECT STREAM ROWTIME, ", 1)


def concepts_rows() -> list[Row]:
    return [{"ROWTIME": at(r), "EVENT_TIME": at(e), "TICKER_SYMBOL": s} for r, e, s in CONCEPTS_EVENTS]


CONCEPTS_SCHEMA = "ROWTIME TIMESTAMP, EVENT_TIME TIMESTAMP, TICKER_SYMBOL STRING"


def printed(result: list[tuple[str, str, str, int]]) -> list[tuple]:
    return sorted((at(r), s, at(e), n) for r, e, s, n in result)


def test_concepts_page_over_a_table_returns_the_printed_rows(spark) -> None:
    spark.createDataFrame(concepts_rows(), CONCEPTS_SCHEMA).createOrReplaceTempView("SOURCE_SQL_STREAM_001")
    assert rows_of(spark.sql(with_rowtime(CONCEPTS_STAGGER))) == printed(CONCEPTS_STAGGER_RESULT)
    assert rows_of(spark.sql(with_rowtime(CONCEPTS_TUMBLING))) == printed(CONCEPTS_TUMBLING_RESULT)
    # As printed (no ROWTIME selected): the same windows.
    assert rows_of(spark.sql(CONCEPTS_STAGGER)) == sorted((s, at(e), n) for _, e, s, n in CONCEPTS_STAGGER_RESULT)
    # The model agrees with the page.
    groups = stagger_windows(
        concepts_rows(), "ROWTIME", timedelta(minutes=1), lambda r: (unit_floor(r["EVENT_TIME"], "MINUTE")[0],)
    )
    assert sorted((end, k, len(g)) for (end, _, k), g in groups.items()) == [
        (at(r), at(e), n) for r, e, _, n in CONCEPTS_STAGGER_RESULT
    ]


def implicit_rowtime(spark: Any, sql: str) -> list[tuple]:
    """The rows a pump writes for ``sql`` (as printed, no ROWTIME selected): the query's columns and
    the ROWTIME the pump gives each row, found as the pump finds it (``ImplicitRowtime``)."""
    from pyspark.sql import DataFrame

    df = spark.sql(sql)
    jvm = spark.sparkContext._jvm
    found = jvm.org.apache.spark.sql.overjoin.ImplicitRowtime.add(spark._jsparkSession, df._jdf)
    assert found.isDefined(), "no ROWTIME for the pump"
    return rows_of(DataFrame(found.get(), spark))


def test_concepts_page_pump_rowtime_is_the_printed_one(spark) -> None:
    """The page's pumps select no ROWTIME; the rows they write get the window's end, as printed."""
    spark.createDataFrame(concepts_rows(), CONCEPTS_SCHEMA).createOrReplaceTempView("SOURCE_SQL_STREAM_001")
    assert implicit_rowtime(spark, CONCEPTS_STAGGER) == sorted(
        (s, at(e), n, at(r)) for r, e, s, n in CONCEPTS_STAGGER_RESULT
    )
    assert implicit_rowtime(spark, CONCEPTS_TUMBLING) == sorted(
        (s, at(e), n, at(r)) for r, e, s, n in CONCEPTS_TUMBLING_RESULT
    )


@pytest.mark.streaming
def test_concepts_page_streamed_returns_the_printed_rows(spark) -> None:
    """One event per micro-batch; a last, much later event moves the watermark past both windows."""
    src = make_stream(spark, "stagger_concepts", CONCEPTS_SCHEMA)
    query = with_rowtime(CONCEPTS_STAGGER).replace('"SOURCE_SQL_STREAM_001"', "STREAM stagger_concepts")
    flush = {"ROWTIME": at("12:00:00"), "EVENT_TIME": at("12:00:00"), "TICKER_SYMBOL": "ZZZ"}
    run = run_stream(
        spark, query, [{"stagger_concepts": [r]} for r in [*concepts_rows(), flush]], {"stagger_concepts": src}
    )
    assert sorted(tuple(r) for r in run.rows) == printed(CONCEPTS_STAGGER_RESULT)
    # Nothing leaves before the watermark passes its window's end.
    assert all(not b for b in run.batches[:-1])


# ---- the developer guide's "Example: Stagger Window" (research: kda_programs.md 3c) -----------

#: The example's application code (the SELECT of its pump), as printed.
EXAMPLE_STAGGER = """SELECT STREAM 
        EVENT_TIME, 
        TICKER,
        COUNT(TICKER) AS ticker_count
    FROM "SOURCE_SQL_STREAM_001"
    WINDOWED BY STAGGER (
            PARTITION BY TICKER, EVENT_TIME RANGE INTERVAL '1' MINUTE)"""  # noqa: W291 (as printed)

#: The example's sample records with the ROWTIME at which each is ingested, as printed.
EXAMPLE_EVENTS = [
    ("20:17:20.797945", "AMZN", "20:17:30"),
    ("20:17:20.797945", "AMZN", "20:17:40"),
    ("20:17:20.797945", "AMZN", "20:17:50"),
    ("20:17:20.797945", "AMZN", "20:18:00"),
    ("20:17:20.797945", "AMZN", "20:18:10"),
    ("20:17:20.797945", "AMZN", "20:18:21"),
    ("20:18:21.043084", "INTC", "20:18:31"),
    ("20:18:21.043084", "INTC", "20:18:41"),
    ("20:18:21.043084", "INTC", "20:18:51"),
    ("20:18:21.043084", "INTC", "20:19:01"),
    ("20:18:21.043084", "INTC", "20:19:11"),
    ("20:18:21.043084", "INTC", "20:19:21"),
]


def example_rows() -> list[Row]:
    out = []
    for event, ticker, rowtime in EXAMPLE_EVENTS:
        clock, micros = event.split(".")
        out.append({"ROWTIME": at(rowtime), "EVENT_TIME": at(clock, int(micros)), "TICKER": ticker})
    return out


def test_example_page_six_records_per_ticker_are_one_window_each(spark) -> None:
    """The page prints no output table (only screenshots): the model's windows. Each ticker's six
    records, ten seconds apart, fall in the one-minute window the first opens."""
    rows = example_rows()
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, EVENT_TIME TIMESTAMP, TICKER STRING").createOrReplaceTempView(
        "SOURCE_SQL_STREAM_001"
    )
    got = rows_of(spark.sql(with_rowtime(EXAMPLE_STAGGER)))
    groups = stagger_windows(rows, "ROWTIME", timedelta(minutes=1), lambda r: (r["TICKER"], r["EVENT_TIME"]))
    want = sorted((end, ev, tk, len(g)) for (end, _, tk, ev), g in groups.items())
    assert got == want
    assert got == [
        (at("20:18:30"), at("20:17:20", 797945), "AMZN", 6),
        (at("20:19:31"), at("20:18:21", 43084), "INTC", 6),
    ]


# ---- a published application (research: kda_programs.md 4c-1) ---------------------------------

#: nakamasato/kinesis-test sql-pipelines/dev/analytics.sql: the pump's SELECT, as printed.
SESSIONS = """    SELECT  STREAM
-- Make the Session ID using user_ID+device_ID and Timestamp
    UPPER(cast("user_id" as VARCHAR(3))|| '_' ||SUBSTRING("device_id",1,3)
    ||cast( UNIX_TIMESTAMP(STEP("client_timestamp" by interval '30' second))/1000 as VARCHAR(20))) as session_id,
    "user_id" , "device_id",
-- create a common rounded STEP timestamp for this session
    STEP("client_timestamp" by interval '30' second),
-- Count the number of client events , clicks on this session
    COUNT("client_event") events,
-- What was the first navigation action
    first_value("client_event") as beginnavigation,
-- what was the last navigation action
    last_value("client_event") as endnavigation,
-- begining minute and second
    SUBSTRING(cast(min("client_timestamp") AS VARCHAR(25)),15,19) as beginsession,
-- ending minute and second
    SUBSTRING(cast(max("client_timestamp") AS VARCHAR(25)),15,19) as endsession,
-- session duration
    TSDIFF(max("client_timestamp"),min("client_timestamp"))/1000 as duration_sec
-- from the source stream
    FROM "SOURCE_SQL_STREAM_001"
-- using stagger window , with STEP to Seconds, for Seconds intervals
    WINDOWED BY STAGGER (
                PARTITION BY "user_id", "device_id", STEP("client_timestamp" by interval '30' second)
                RANGE INTERVAL '30' SECOND )"""


def test_published_sessions_application(spark) -> None:
    """As printed, KDA's functions included: TSDIFF (milliseconds between two timestamps) and
    UNIX_TIMESTAMP, which in a streaming block is KDA's milliseconds (the program divides by 1000
    for seconds; Spark's function of that name counts seconds). Its windows, durations and session
    ids are the model's."""
    clicks = []
    rng = random.Random(7)
    t = T0
    for i in range(40):
        t += timedelta(seconds=rng.randint(1, 12))
        clicks.append(
            {
                "ROWTIME": t,
                "user_id": rng.randint(1, 2),
                "device_id": rng.choice(["mobile", "desktop"]),
                "client_timestamp": t - timedelta(seconds=rng.randint(0, 3)),
                "client_event": f"e{i}",
            }
        )
    spark.createDataFrame(
        clicks, "ROWTIME TIMESTAMP, user_id INT, device_id STRING, client_timestamp TIMESTAMP, client_event STRING"
    ).createOrReplaceTempView("SOURCE_SQL_STREAM_001")
    got = sorted(
        (r["session_id"], r["user_id"], r["device_id"], r["events"], r["beginnavigation"], r["endnavigation"],
         r["duration_sec"])
        for r in spark.sql(SESSIONS).collect()
    )  # fmt: skip

    def step30(x: datetime) -> datetime:
        return x - timedelta(seconds=x.second % 30, microseconds=x.microsecond)

    groups = stagger_windows(
        clicks,
        "ROWTIME",
        timedelta(seconds=30),
        lambda r: (r["user_id"], r["device_id"], step30(r["client_timestamp"])),
    )
    want = []
    for (_, _, user, device, step), g in groups.items():
        g = sorted(g, key=lambda r: r["ROWTIME"])
        span = max(r["client_timestamp"] for r in g) - min(r["client_timestamp"] for r in g)
        # UNIX_TIMESTAMP(...)/1000: seconds since the epoch (the session's time zone is UTC), a
        # BIGINT divided by an INTEGER, which in a streaming block is KDA's integer division; so is
        # TSDIFF(...)/1000 (docs/syntax.md, "KDA and s-Server functions").
        session = f"{user}_{device[:3]}{calendar.timegm(step.timetuple())}".upper()
        duration = int(span / timedelta(milliseconds=1)) // 1000
        want.append((session, user, device, len(g), g[0]["client_event"], g[-1]["client_event"], duration))
    assert got == sorted(want)
    assert len(got) > 5


# ---- generated inputs against the reference model ----------------------------------------------

SIZES = {
    "INTERVAL '10' SECOND": 10 * SEC,
    "INTERVAL '1' MINUTE": 60 * SEC,
    "INTERVAL '0:45' MINUTE TO SECOND": 45 * SEC,
}


def generated_rows(rng: random.Random, n: int, spread: timedelta, nulls: bool = True) -> list[Row]:
    rows = []
    for i in range(n):
        t = T0 + timedelta(microseconds=rng.randrange(int(spread / timedelta(microseconds=1))))
        rows.append({"id": i, "k": rng.randint(0, 3), "v": rng.randint(-5, 9), "ROWTIME": t})
    if nulls:
        rows.append({"id": n, "k": 0, "v": 1, "ROWTIME": None})
    return rows


SCHEMA = "id INT, k INT, v INT, ROWTIME TIMESTAMP"


def query(source: str, size: str) -> str:
    return (
        "SELECT STREAM ROWTIME, k, COUNT(*) AS n, SUM(v) AS total, MIN(s.ROWTIME) AS first, MAX(ROWTIME) AS latest "
        f"FROM {source} AS s WINDOWED BY STAGGER (PARTITION BY k RANGE {size})"
    )


def model(rows: list[Row], size: timedelta) -> list[tuple]:
    groups = stagger_windows(rows, "ROWTIME", size, lambda r: (r["k"],))
    return sorted(
        (end, k, len(g), sum(r["v"] for r in g), min(r["ROWTIME"] for r in g), max(r["ROWTIME"] for r in g))
        for (end, _, k), g in groups.items()
    )


@pytest.mark.parametrize("seed", range(4))
def test_windows_over_a_table_match_the_model(spark, seed: int) -> None:
    rng = random.Random(seed)
    spelling, size = rng.choice(list(SIZES.items()))
    rows = generated_rows(rng, 150, timedelta(minutes=5))
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("stagger_t")
    got = rows_of(spark.sql(query("stagger_t", spelling)))
    want = model(rows, size)
    assert got == want
    # Each window starts at its first row (MIN(ROWTIME) = end - size), and windows of a key never overlap.
    assert all(first == end - size for end, _, _, _, first, _ in got)
    by_key: dict[int, list[tuple]] = {}
    for g in got:
        by_key.setdefault(g[1], []).append(g)
    for ws in by_key.values():
        assert all(b[4] >= a[0] for a, b in itertools.pairwise(ws))


def test_a_stagger_window_is_not_a_tumbling_window(spark) -> None:
    """Rows 50 s apart with a one-minute window: tumbling splits at the minute, stagger does not."""
    rows = [
        {"id": 0, "k": 1, "v": 1, "ROWTIME": T0 + 30 * SEC},
        {"id": 1, "k": 1, "v": 2, "ROWTIME": T0 + 80 * SEC},
        {"id": 2, "k": 1, "v": 4, "ROWTIME": T0 + 95 * SEC},
        {"id": 3, "k": 2, "v": 8, "ROWTIME": T0 + 95 * SEC},
    ]
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("stagger_t2")
    got = rows_of(spark.sql(query("stagger_t2", "INTERVAL '1' MINUTE")))
    assert got == [
        (T0 + 90 * SEC, 1, 2, 3, T0 + 30 * SEC, T0 + 80 * SEC),
        (T0 + 155 * SEC, 1, 1, 4, T0 + 95 * SEC, T0 + 95 * SEC),
        (T0 + 155 * SEC, 2, 1, 8, T0 + 95 * SEC, T0 + 95 * SEC),
    ]
    tumbling = tumbling_groups(rows, "ROWTIME", lambda t: unit_floor(t, "MINUTE"), lambda r: (r["k"],))
    assert len(tumbling) == 3 and sorted(len(g) for g in tumbling.values()) == [1, 1, 2]
    assert {tuple(sorted(r["id"] for r in g)) for g in tumbling.values()} != {(0, 1), (2,), (3,)}


def dropped(run: Any) -> int:
    return sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))


@pytest.mark.streaming
@pytest.mark.parametrize("seed", range(3))
def test_stream_in_and_out_of_order_with_late_rows_matches_replay_and_model(spark, seed: int) -> None:
    rng = random.Random(50 + seed)
    spelling, size = rng.choice(list(SIZES.items()))
    lateness = 20 * SEC
    rows = sorted(generated_rows(rng, 120, timedelta(minutes=6), nulls=False), key=lambda r: r["ROWTIME"])
    if seed == 0:
        arrival = rows  # in rowtime order
    else:  # out of order, never by more than the lateness
        buckets: dict[int, list[Row]] = {}
        for r in rows:
            buckets.setdefault(int((r["ROWTIME"] - T0) / (15 * SEC)), []).append(r)
        arrival = [r for b in sorted(buckets) for r in rng.sample(buckets[b], len(buckets[b]))]
    batches = [arrival[i : i + 17] for i in range(0, len(arrival), 17)]
    # Late rows: in the fifth batch on, two minutes older than anything the previous batches had.
    late = [
        {"id": 1000 + i, "k": i % 4, "v": 100, "ROWTIME": batches[3][0]["ROWTIME"] - 2 * 60 * SEC} for i in range(3)
    ]
    batches[4] = batches[4] + late
    src = make_stream(spark, "stagger_s", SCHEMA)
    with setting(spark, "spark.overjoin.lateness", "20 seconds"):
        run = run_stream(
            spark, query("STREAM stagger_s", spelling), [{"stagger_s": b} for b in batches], {"stagger_s": src}
        )
    got = sorted(tuple(r) for r in run.rows)
    assert dropped(run) == len(late)
    expected = model(rows, size)
    watermark = max(r["ROWTIME"] for r in rows) - lateness
    assert got == [g for g in expected if g[0] <= watermark]
    assert len(got) > len(expected) // 2
    # Replay over the same rows (the late ones excluded) returns every window, the stream's among them.
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("stagger_replay")
    assert rows_of(spark.sql(query("stagger_replay", spelling))) == expected
    # A window leaves once the watermark passes its end: after each batch, exactly those are out.
    seen: list[Row] = []
    emitted: list[tuple] = []
    for fed, out in zip(batches, run.batches):
        seen += [r for r in fed if r["id"] < 1000]
        emitted += [tuple(r) for r in out]
        mark = max(r["ROWTIME"] for r in seen) - lateness
        assert sorted(emitted) == [g for g in expected if g[0] <= mark]


@pytest.mark.streaming
def test_stop_and_restart_from_the_checkpoint(spark) -> None:
    """Half the batches, stop, the rest from the same checkpoint: every window once, as replay."""
    rng = random.Random(99)
    size = 60 * SEC
    rows = sorted(generated_rows(rng, 100, timedelta(minutes=8), nulls=False), key=lambda r: r["ROWTIME"])
    batches = [rows[i : i + 10] for i in range(0, len(rows), 10)]
    src = make_stream(spark, "stagger_r", SCHEMA)
    out = tempfile.mkdtemp(prefix="overjoin-stagger-out-")
    checkpoint = tempfile.mkdtemp(prefix="overjoin-stagger-ckpt-")
    sql = query("STREAM stagger_r", "INTERVAL '1' MINUTE")

    def start() -> Any:
        return (
            spark.sql(sql)
            .writeStream.format("parquet")
            .option("path", out)
            .option("checkpointLocation", checkpoint)
            .outputMode("append")
            .start()
        )

    with setting(spark, "spark.overjoin.lateness", "10 seconds"):
        q = start()
        try:
            for b in batches[:5]:
                src.write_batch(b)
                q.processAllAvailable()
        finally:
            q.stop()
        q = start()
        try:
            for b in batches[5:]:
                src.write_batch(b)
                q.processAllAvailable()
        finally:
            q.stop()
    got = sorted(
        tuple(r) for r in spark.read.parquet(out).select("ROWTIME", "k", "n", "total", "first", "latest").collect()
    )
    expected = model(rows, size)
    watermark = rows[-1]["ROWTIME"] - 10 * SEC
    assert got == [g for g in expected if g[0] <= watermark]
    assert len(got) == len(set(got))


# ---- errors -------------------------------------------------------------------------------------

BAD = [
    (
        "SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER PARTITION BY k RANGE INTERVAL '1' MINUTE",
        "OJ001",
        "PARTITION",
    ),
    ("SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (k RANGE INTERVAL '1' MINUTE)", "OJ001", "k RANGE"),
    ("SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY RANGE INTERVAL '1' MINUTE)", "OJ001", "RANGE"),
    ("SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY k)", "OJ001", ")"),
    ("SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY k RANGE INTERVAL '1' MONTH)", "OJ1", "MONTH"),
    ("SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY k RANGE INTERVAL 'x' MINUTE)", "OJ1", "'x'"),
    (
        "SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY k RANGE INTERVAL '0' MINUTE)",
        "OJ001",
        "INTERVAL '0' MINUTE",
    ),
    (
        "SELECT STREAM k, COUNT(*) FROM t WINDOWED BY STAGGER (PARTITION BY k RANGE INTERVAL '1' MINUTE) GROUP BY k",
        "OJ001",
        "GROUP",
    ),
]


@pytest.mark.parametrize(("sql", "code", "at_text"), BAD)
def test_bad_stagger_clauses_say_what_and_where(spark, sql: str, code: str, at_text: str) -> None:
    spark.createDataFrame([], SCHEMA).createOrReplaceTempView("t")
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    message = str(e.value)
    assert code in message
    # The caret line points at the offending text of the user's statement.
    assert sql[caret_column(message) :].startswith(at_text), message


def test_plain_sql_with_a_column_named_stagger_is_spark_s(spark) -> None:
    spark.createDataFrame([(1, 2)], "stagger INT, windowed INT").createOrReplaceTempView("stagger_plain")
    assert rows_of(spark.sql("SELECT stagger, windowed FROM stagger_plain windowed")) == [(1, 2)]
