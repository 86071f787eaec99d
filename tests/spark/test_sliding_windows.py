"""Sliding windows: window functions over a stream (docs/semantics.md §12, KDA's most common window).

* replay (the query over tables) equals Spark's own window functions over the same rows, computed
  here by plain Spark SQL with an explicit ``ORDER BY rowtime`` frame (overjoin's parser off);
* the stream equals replay over the rows that were not late, in order and out of order, and the
  late rows are counted; ``LAG`` and the aggregates equal the reference model
  (tests/reference_model.py ``sliding_window``);
* a stop and restart from the checkpoint loses and duplicates no row;
* state stays flat over a ten times longer stream;
* what a stream cannot run is refused before it starts, with its code and position (OJ120-OJ122),
  and runs over tables as Spark runs it.

Generated inputs print their seed in the assertion message.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import tempfile
from collections.abc import Sequence
from typing import Any

import pytest
from pyspark.errors import AnalysisException

import overjoin
from tests.reference_model import SlidingCall, Window, multiset, sliding_window
from tests.spark.streams import make_stream, run_stream

T0 = dt.datetime(2024, 3, 1, 9, 0, 0)
SCHEMA = "rowtime timestamp, k int, v int, id int"
FLUSH_KEY = 99


def gen_rows(seed: int, n: int = 60, keys: int = 3, ties: bool = True) -> list[dict[str, Any]]:
    """``n`` rows in arrival order: rowtimes over 4 minutes (whole seconds; with ``ties`` many equal
    rowtimes per key, without none within a key), NULL values, ``id`` = arrival index."""
    rnd = random.Random(seed)
    used: set[tuple[int, int]] = set()
    rows = []
    for i in range(n):
        k = rnd.randrange(keys)
        while True:
            s = rnd.randrange(0, 240 if not ties else 60) * (1 if not ties else 4)
            if ties or (k, s) not in used:
                break
        used.add((k, s))
        v = None if rnd.random() < 0.15 else rnd.randrange(-5, 30)
        rows.append({"rowtime": T0 + dt.timedelta(seconds=s), "k": k, "v": v, "id": i})
    return rows


def table(spark: Any, name: str, rows: Sequence[dict[str, Any]]) -> None:
    spark.createDataFrame([(r["rowtime"], r["k"], r["v"], r["id"]) for r in rows], SCHEMA).createOrReplaceTempView(name)


def rows_of(df: Any) -> list[tuple[Any, ...]]:
    return [tuple(round(x, 6) if isinstance(x, float) else x for x in r) for r in df.collect()]


def plain_spark(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` run by Spark alone, as if overjoin were not loaded."""
    spark.conf.set("spark.overjoin.parser.enabled", "false")
    try:
        return rows_of(spark.sql(sql))
    finally:
        spark.conf.unset("spark.overjoin.parser.enabled")


# -- (a) replay == Spark's own window functions --------------------------------------------------

AGGS = (
    "COUNT(*) OVER {w} AS c, COUNT(v) OVER {w} AS cv, SUM(v) OVER {w} AS s, MIN(v) OVER {w} AS mn, "
    "MAX(v) OVER {w} AS mx, AVG(v) OVER {w} AS av, STDDEV(v) OVER {w} AS sd, VARIANCE(v) OVER {w} AS var"
)
VALUES = (
    "FIRST_VALUE(v) OVER {w} AS fv, LAST_VALUE(v) OVER {w} AS lv, NTH_VALUE(v, 2) OVER {w} AS nv, "
    "FIRST_VALUE(v) IGNORE NULLS OVER {w} AS fvi"
)

# (overjoin's spelling, Spark's own spelling with the order written, ties allowed)
SPELLINGS = [
    # KDA's: a named window, no ORDER BY, RANGE INTERVAL ... PRECEDING
    (
        "SELECT STREAM id, "
        + AGGS.format(w="w")
        + " FROM {t} WINDOW w AS (PARTITION BY k RANGE INTERVAL '30' SECOND PRECEDING)",
        "SELECT id, " + AGGS.format(w="w") + " FROM {t} WINDOW w AS (PARTITION BY k ORDER BY rowtime "
        "RANGE BETWEEN INTERVAL '30' SECOND PRECEDING AND CURRENT ROW)",
        True,
    ),
    # inline, ORDER BY the rowtime, BETWEEN ... AND CURRENT ROW, a Lenses duration, x TO y intervals
    (
        "SELECT STREAM id, SUM(v) OVER (PARTITION BY k ORDER BY rowtime RANGE BETWEEN 30s PRECEDING AND CURRENT ROW) AS a, "
        "MAX(v) OVER (PARTITION BY k RANGE INTERVAL '1:05' MINUTE TO SECOND PRECEDING) AS b FROM {t}",
        "SELECT id, SUM(v) OVER (PARTITION BY k ORDER BY rowtime RANGE BETWEEN INTERVAL 30 SECONDS PRECEDING AND CURRENT ROW) AS a, "
        "MAX(v) OVER (PARTITION BY k ORDER BY rowtime RANGE BETWEEN INTERVAL '65' SECOND PRECEDING AND CURRENT ROW) AS b FROM {t}",
        True,
    ),
    # several windows in one SELECT, PARTITION BY an expression, no PARTITION BY, RANGE CURRENT ROW
    (
        "SELECT STREAM id, COUNT(*) OVER (PARTITION BY pmod(k, 2) RANGE INTERVAL '1' MINUTE PRECEDING) AS a, "
        "SUM(v) OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS b, COUNT(v) OVER (PARTITION BY k RANGE CURRENT ROW) AS c FROM {t}",
        "SELECT id, COUNT(*) OVER (PARTITION BY pmod(k, 2) ORDER BY rowtime RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) AS a, "
        "SUM(v) OVER (ORDER BY rowtime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS b, "
        "COUNT(v) OVER (PARTITION BY k ORDER BY rowtime RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS c FROM {t}",
        True,
    ),
    # ROWS frames and the value functions (no ties within a key: their order is the rowtime's)
    (
        "SELECT STREAM id, "
        + AGGS.format(w="w")
        + ", "
        + VALUES.format(w="w")
        + ", SUM(v) OVER (PARTITION BY k ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s2 FROM {t} WINDOW w AS (PARTITION BY k ROWS 3 PRECEDING)",
        "SELECT id, "
        + AGGS.format(w="w")
        + ", "
        + VALUES.format(w="w")
        + ", SUM(v) OVER (PARTITION BY k ORDER BY rowtime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s2 FROM {t} "
        "WINDOW w AS (PARTITION BY k ORDER BY rowtime ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)",
        False,
    ),
    (
        "SELECT STREAM id, "
        + VALUES.format(w="w")
        + " FROM {t} WINDOW w AS (PARTITION BY k RANGE INTERVAL '40' SECOND PRECEDING)",
        "SELECT id, " + VALUES.format(w="w") + " FROM {t} WINDOW w AS (PARTITION BY k ORDER BY rowtime "
        "RANGE BETWEEN INTERVAL '40' SECOND PRECEDING AND CURRENT ROW)",
        False,
    ),
]


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("spelling", range(len(SPELLINGS)))
def test_replay_equals_sparks_own_window_functions(spark, seed, spelling):
    ours, sparks, ties = SPELLINGS[spelling]
    rows = gen_rows(seed, ties=ties)
    table(spark, "sw_replay", rows)
    got = rows_of(spark.sql(ours.format(t="sw_replay")))
    want = plain_spark(spark, sparks.format(t="sw_replay"))
    assert len(got) == len(rows)
    assert multiset(got) == multiset(want), f"seed {seed}: {ours}"


def test_rowtime_column_named_rowtime_and_order_by_rowtime(spark):
    """KDA's spelling over an input whose rowtime column is called ROWTIME, quoted names, a pump-like
    select list: ``ORDER BY ROWTIME`` in a named window is the input's rowtime, not ambiguous."""
    rows = gen_rows(21)
    spark.createDataFrame(
        [(r["rowtime"], r["k"], r["v"], r["id"]) for r in rows],
        "ROWTIME timestamp, ticker_symbol int, price int, id int",
    ).createOrReplaceTempView("SOURCE_SQL_STREAM_001")
    got = rows_of(
        spark.sql(
            'SELECT STREAM "id", "ticker_symbol", MIN("price") OVER W1 AS "Min_Price", MAX("price") OVER W1 AS Max_Price, '
            'AVG("price") OVER W1 AS Avg_Price FROM "SOURCE_SQL_STREAM_001" '
            "WINDOW W1 AS (PARTITION BY \"ticker_symbol\" ORDER BY ROWTIME RANGE INTERVAL '1' MINUTE PRECEDING)"
        )
    )
    want = plain_spark(
        spark,
        "SELECT id, ticker_symbol, MIN(price) OVER W1, MAX(price) OVER W1, AVG(price) OVER W1 FROM SOURCE_SQL_STREAM_001 "
        "WINDOW W1 AS (PARTITION BY ticker_symbol ORDER BY ROWTIME RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW)",
    )
    assert multiset(got) == multiset(want)


# -- LAG with KDA's meaning, and the reference model ---------------------------------------------

MODEL_QUERY = (
    "SELECT STREAM rowtime, id, COUNT(*) OVER w AS c, COUNT(v) OVER w AS cv, SUM(v) OVER w AS s, MIN(v) OVER w AS mn, "
    "MAX(v) OVER w AS mx, AVG(v) OVER w AS av, LAG(v) OVER w AS l1, LAG(v, 2, -1) OVER w AS l2, "
    "LAG(v, 1) IGNORE NULLS OVER w AS li FROM {t} WINDOW w AS (PARTITION BY k {frame})"
)
MODEL_CALLS = [
    SlidingCall("COUNT"),
    SlidingCall("COUNT", "v"),
    SlidingCall("SUM", "v"),
    SlidingCall("MIN", "v"),
    SlidingCall("MAX", "v"),
    SlidingCall("AVG", "v"),
    SlidingCall("LAG", "v"),
    SlidingCall("LAG", "v", k=2, default=-1),
    SlidingCall("LAG", "v", ignore_nulls=True),
]
FRAMES: list[tuple[str, Window]] = [
    ("RANGE INTERVAL '30' SECOND PRECEDING", Window.range(dt.timedelta(seconds=30))),
    ("ROWS 2 PRECEDING", Window.rows(2)),
]


def model(rows: Sequence[dict[str, Any]], window: Window) -> list[tuple[Any, ...]]:
    out = sliding_window(rows, "rowtime", window, MODEL_CALLS, partition_by=lambda r: r["k"], keep=("id",))
    return [tuple(round(x, 6) if isinstance(x, float) else x for x in r) for r in out]


@pytest.mark.parametrize("seed", [31, 32])
@pytest.mark.parametrize("frame", range(len(FRAMES)))
def test_replay_equals_the_reference_model_lag_included(spark, seed, frame):
    text, window = FRAMES[frame]
    rows = gen_rows(seed, ties=False)
    table(spark, "sw_model", rows)
    got = sorted(rows_of(spark.sql(MODEL_QUERY.format(t="sw_model", frame=text))), key=_key)
    assert got == sorted(model(rows, window), key=_key), f"seed {seed} {text}"


def test_lag_within_its_window_by_hand(spark):
    """LAG is the previous row *within the window*: 40 s back is outside a 30 s window."""
    rows = [
        {"rowtime": T0, "k": 1, "v": 1, "id": 0},
        {"rowtime": T0 + dt.timedelta(seconds=10), "k": 1, "v": None, "id": 1},
        {"rowtime": T0 + dt.timedelta(seconds=20), "k": 1, "v": 3, "id": 2},
        {"rowtime": T0 + dt.timedelta(seconds=60), "k": 1, "v": 4, "id": 3},
    ]
    table(spark, "sw_lag", rows)
    got = spark.sql(
        "SELECT STREAM id, LAG(v) OVER w AS l, LAG(v, 1, 0) IGNORE NULLS OVER w AS li, LAG(v, 2, -9) OVER w AS l2 "
        "FROM sw_lag WINDOW w AS (RANGE INTERVAL '30' SECOND PRECEDING) ORDER BY id"
    ).collect()
    assert [tuple(r) for r in got] == [(0, None, 0, -9), (1, 1, 1, -9), (2, None, 1, 1), (3, None, 0, -9)]


def _key(t: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0,) if v is None else (1, str(v)) for v in t)


# -- (b), (c) streams ----------------------------------------------------------------------------


def batches_of(rows: list[dict[str, Any]], seed: int, size: int, shuffle: bool) -> list[list[dict[str, Any]]]:
    rnd = random.Random(seed)
    ordered = sorted(rows, key=lambda r: (r["rowtime"], r["id"])) if not shuffle else list(rows)
    if shuffle:
        rnd.shuffle(ordered)
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def on_time(batches: list[list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], int]:
    """The rows of ``batches`` that are not late (docs/semantics.md §8, lateness 0: strictly older
    than the largest rowtime of the earlier batches is late), in arrival order; and the late count."""
    kept, late, latest = [], 0, None
    for b in batches:
        for r in b:
            if latest is not None and r["rowtime"] < latest:
                late += 1
            else:
                kept.append(r)
        times = [r["rowtime"] for r in b] + ([latest] if latest is not None else [])
        latest = max(times)
    return kept, late


def flush(n: int) -> list[dict[str, Any]]:
    return [{"rowtime": T0 + dt.timedelta(hours=1 + n), "k": FLUSH_KEY, "v": 0, "id": 10_000 + n}]


def stream_rows(run: Any, columns: int) -> list[tuple[Any, ...]]:
    out = []
    for r in run.rows:
        t = tuple(round(x, 6) if isinstance(x, float) else x for x in r)
        if t[1] < 10_000:
            out.append(t[:columns])
    return out


@pytest.mark.streaming
@pytest.mark.parametrize(("seed", "shuffle"), [(41, False), (42, True), (43, True)])
@pytest.mark.parametrize("frame", range(len(FRAMES)))
def test_stream_equals_replay_and_the_model(spark, seed, shuffle, frame):
    text, window = FRAMES[frame]
    rows = gen_rows(seed, ties=False)
    batches = [*batches_of(rows, seed, 12, shuffle), flush(0), flush(1)]
    kept, late = on_time(batches)
    kept = [r for r in kept if r["k"] != FLUSH_KEY]
    name = f"sw_stream_{seed}_{frame}"
    inputs = {name: make_stream(spark, name, SCHEMA)}
    run = run_stream(spark, MODEL_QUERY.format(t=name, frame=text), [{name: b} for b in batches], inputs)
    got = sorted(stream_rows(run, 11), key=_key)
    assert len(got) == len(kept), f"seed {seed}: one row per input row that is not late"
    dropped = sum(op["numRowsDroppedByWatermark"] for p in run.progress for op in p["stateOperators"])
    assert dropped == late, f"seed {seed}"
    assert (late > 0) == shuffle, f"seed {seed}: the out-of-order cases must have late rows"
    table(spark, "sw_stream_replay", kept)
    replay = sorted(rows_of(spark.sql(MODEL_QUERY.format(t="sw_stream_replay", frame=text))), key=_key)
    assert got == replay, f"seed {seed} {text}"
    assert got == sorted(model(kept, window), key=_key), f"seed {seed} {text}"


@pytest.mark.streaming
def test_a_row_waits_for_the_watermark_to_pass_it(spark):
    """§12: a row comes out once the watermark is strictly past its ROWTIME (its peers have arrived)."""
    name = "sw_wait"
    inputs = {name: make_stream(spark, name, SCHEMA)}
    t = [T0 + dt.timedelta(seconds=s) for s in (0, 10, 10, 20)]
    batches = [
        {name: [{"rowtime": t[0], "k": 1, "v": 1, "id": 0}, {"rowtime": t[1], "k": 1, "v": 2, "id": 1}]},
        {name: [{"rowtime": t[2], "k": 1, "v": 3, "id": 2}]},  # a peer of row 1, not late
        {name: [{"rowtime": t[3], "k": 1, "v": 4, "id": 3}]},
    ]
    run = run_stream(
        spark, f"SELECT STREAM id, SUM(v) OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS s FROM {name}", batches, inputs
    )
    assert sorted(tuple(r) for r in run.rows) == [(0, 1), (1, 6), (2, 6)]  # row 3 waits: no later row yet
    assert not any(r["id"] == 1 for r in run.batches[0])  # row 1 waited for its peer


# -- the three evaluations of the operator agree ------------------------------------------------

EVAL_SCHEMA = "rowtime timestamp, k int, v int, d double, s string, id int"
EVAL_QUERY = (
    "SELECT STREAM id, COUNT(*) OVER w AS c, COUNT(d) OVER w AS cd, SUM(v) OVER w AS sv, AVG(v) OVER w AS av, "
    "MIN(d) OVER w AS mnd, MAX(d) OVER w AS mxd, MIN(s) OVER w AS mns, MAX(s) OVER w AS mxs, "
    "FIRST_VALUE(d) OVER w AS fd, LAST_VALUE(s) OVER w AS ls, FIRST_VALUE(d) IGNORE NULLS OVER w AS fdi, "
    "SUM(d) OVER w AS sd, AVG(d) OVER w AS ad, "
    "MIN(v) OVER (PARTITION BY k ROWS 3 PRECEDING) AS mr, SUM(v) OVER (PARTITION BY k ROWS 3 PRECEDING) AS sr, "
    "COUNT(*) OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS c5 "
    "FROM {t} WINDOW w AS (PARTITION BY k RANGE INTERVAL '20' SECOND PRECEDING)"
)


def gen_eval_rows(seed: int, n: int = 150) -> list[dict[str, Any]]:
    """Rows for the comparison of evaluations: few keys, many equal rowtimes, stretches of 50 s
    (several 20 s frames each: frames move along their rows) between gaps longer than the window
    (the frames start again), doubles with -0.0, 0.0, NaN and NULL (equal extremes that print
    differently: which one is kept shows the order of the work), strings and NULLs."""
    rnd = random.Random(seed)
    doubles = [-0.0, 0.0, float("nan"), None, 1.5, -2.25, 1e16, 3.0]
    rows = []
    for i in range(n):
        block = rnd.randrange(3)  # three 50 s stretches of time, 30 s apart
        s = block * 80 + rnd.randrange(0, 50)
        d = rnd.choice(doubles)
        rows.append(
            {
                "rowtime": T0 + dt.timedelta(seconds=s),
                "k": rnd.randrange(3),
                "v": None if rnd.random() < 0.1 else rnd.randrange(-1000, 1000),
                "d": d,
                "s": None if rnd.random() < 0.1 else rnd.choice(["a", "b", "B", "ab", ""]),
                "id": i,
            }
        )
    return rows


def exact(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Rows with every float as its repr: -0.0 is not 0.0, NaN equals NaN, no rounding."""
    return sorted((tuple(repr(x) if isinstance(x, float) else x for x in r) for r in rows), key=_key)


def close(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Rows with floats to 6 places (NaN as 'nan'): floating sums over peers depend on their order."""
    return sorted(
        (tuple(("nan" if x != x else round(x, 6)) if isinstance(x, float) else x for x in r) for r in rows), key=_key
    )


@pytest.mark.streaming
@pytest.mark.parametrize(("seed", "shuffle"), [(61, True), (62, False)])
def test_incremental_due_and_spark_evaluations_give_the_same_rows(spark, seed, shuffle):
    """spark.overjoin.sliding.evaluation: 'incremental' (partial buffers merged from row to row
    where the functions allow it), 'due' (each emitted row's frame in order) and 'spark' (Spark's
    evaluator over every held row) emit the same rows, bit for bit, and equal replay (Spark's window
    functions over the same rows as a table, up to the order of peers in floating sums)."""
    rows = gen_eval_rows(seed)
    batches = [*batches_of(rows, seed, 15, shuffle), flush(0), flush(1)]
    for r in batches[-1] + batches[-2]:
        r.update(d=0.0, s="z")
    kept, late = on_time(batches)
    kept = [r for r in kept if r["k"] != FLUSH_KEY]
    assert (late > 0) == shuffle, f"seed {seed}"
    got = {}
    for mode in ("incremental", "due", "spark"):
        spark.conf.set("spark.overjoin.sliding.evaluation", mode)
        try:
            name = f"sw_eval_{seed}_{mode}"
            inputs = {name: make_stream(spark, name, EVAL_SCHEMA)}
            run = run_stream(spark, EVAL_QUERY.format(t=name), [{name: b} for b in batches], inputs)
        finally:
            spark.conf.unset("spark.overjoin.sliding.evaluation")
        got[mode] = [tuple(r) for r in run.rows if r[0] < 10_000]
        assert len(got[mode]) == len(kept), f"seed {seed} {mode}: one row per row not late ({late} late)"
    assert exact(got["incremental"]) == exact(got["due"]), f"seed {seed}"
    assert exact(got["due"]) == exact(got["spark"]), f"seed {seed}"
    spark.createDataFrame(
        [(r["rowtime"], r["k"], r["v"], r["d"], r["s"], r["id"]) for r in kept], EVAL_SCHEMA
    ).createOrReplaceTempView("sw_eval_replay")
    replay = [tuple(r) for r in spark.sql(EVAL_QUERY.format(t="sw_eval_replay")).collect()]
    assert close(got["incremental"]) == close(replay), f"seed {seed}"


# -- (d) restart from the checkpoint ---------------------------------------------------------------


ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


@pytest.mark.streaming
@pytest.mark.parametrize(("seed", "store"), [(51, "hdfs"), (52, "hdfs"), (53, "rocksdb"), (54, "rocksdb")])
def test_stop_and_restart_loses_and_duplicates_nothing(spark, seed, store):
    """On the default (HDFS-backed) store and on RocksDB: the operator decodes a key's rows from the
    stored value's own bytes (no copy), which either store must leave unchanged while it runs."""
    text, window = FRAMES[seed % 2]
    rows = gen_rows(seed, ties=False)
    batches = [*batches_of(rows, seed, 10, shuffle=True), flush(0), flush(1)]
    kept, _ = on_time(batches)
    kept = [r for r in kept if r["k"] != FLUSH_KEY]
    out = stop_and_restart_rows(spark, f"sw_restart_{seed}", MODEL_QUERY.format(t="{t}", frame=text), batches, store)
    got = sorted((r for r in out if r[1] < 10_000), key=_key)
    assert len(got) == len(kept), f"seed {seed}"
    assert got == sorted(model(kept, window), key=_key), f"seed {seed}"


def stop_and_restart_rows(
    spark: Any, view: str, query: str, batches: list[list[dict[str, Any]]], store: str
) -> list[tuple[Any, ...]]:
    """``query`` (its input ``{t}``, a stream of ``SCHEMA`` named ``view``) into a Parquet sink, fed
    ``batches`` as files, stopped after half of them and restarted from its checkpoint for the
    rest, on the state store ``store`` ("hdfs" or "rocksdb", whose files are checked): the sink's
    rows, floats rounded to 6 places."""
    work = tempfile.mkdtemp(prefix="overjoin-sliding-restart-")
    folder, out, ckpt = (os.path.join(work, d) for d in ("in", "out", "ckpt"))
    os.makedirs(folder)
    spark.readStream.schema(SCHEMA).json(folder).createOrReplaceTempView(view)
    from tests.spark.restart_child import write_batch

    if store == "rocksdb":
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    try:
        half = len(batches) // 2
        for indexes in (range(half), range(half, len(batches))):
            running = (
                spark.sql(query.format(t=view))
                .writeStream.format("parquet")
                .option("path", out)
                .option("checkpointLocation", ckpt)
                .outputMode("append")
                .start()
            )
            try:
                for i in indexes:
                    write_batch(folder, i, batches[i])
                    running.processAllAvailable()
            finally:
                running.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.stateStore.providerClass")
    kinds = {f.rsplit(".", 1)[-1] for _, _, fs in os.walk(os.path.join(ckpt, "state")) for f in fs if "." in f}
    if store == "rocksdb":
        assert kinds & {"zip", "changelog"} and "delta" not in kinds, f"{view}: state files {sorted(kinds)}"
    else:
        assert "delta" in kinds, f"{view}: state files {sorted(kinds)}"
    return [tuple(round(x, 6) if isinstance(x, float) else x for x in r) for r in spark.read.parquet(out).collect()]


# -- (e) state stays bounded -------------------------------------------------------------------------


def _state_peak(spark: Any, name: str, batches_count: int) -> int:
    inputs = {name: make_stream(spark, name, SCHEMA)}
    batches = []
    for b in range(batches_count):
        batch = [
            {"rowtime": T0 + dt.timedelta(seconds=10 * b + s), "k": k, "v": b, "id": b * 100 + s * 3 + k}
            for s in range(0, 10, 2)
            for k in range(3)
        ]
        batches.append({name: batch})
    run = run_stream(
        spark,
        f"SELECT STREAM id, AVG(v) OVER (PARTITION BY k RANGE INTERVAL '30' SECOND PRECEDING) AS a, "
        f"LAG(v) OVER (PARTITION BY k ROWS 4 PRECEDING) AS l FROM {name}",
        batches,
        inputs,
    )
    assert len(run.rows) == batches_count * 15 - 3  # the last rowtime waits for a later row
    return max(op["numRowsTotal"] for p in run.progress for op in p["stateOperators"])


@pytest.mark.streaming
def test_state_stays_flat_over_a_ten_times_longer_stream(spark):
    short = _state_peak(spark, "sw_state_short", 5)
    long = _state_peak(spark, "sw_state_long", 50)
    # 30 s of rows per key (5 batches of 10 s hold 3 keys x 5 rows) plus one batch waiting.
    assert long <= short + 3, (short, long)
    assert long <= 3 * 5 * 5, long


# -- (f) what a stream cannot run ------------------------------------------------------------------

REFUSALS = [
    (
        # A running aggregate runs (tests/spark/test_running_windows.py); a list of every row does not.
        "SELECT STREAM id, COLLECT_LIST(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM {t}",
        "OVERJOIN_SLIDING_WINDOW_UNBOUNDED",
        "OJ120",
        "UNBOUNDED",
        {"call": "COLLECT_LIST(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    ),
    (
        "SELECT STREAM id, SUM(v) OVER w AS s FROM {t} WINDOW w AS (PARTITION BY k)",
        "OVERJOIN_SLIDING_WINDOW_UNBOUNDED",
        "OJ120",
        "(PARTITION BY k)",
        {"call": "SUM(v) OVER w"},
    ),
    (
        "SELECT STREAM id, SUM(v) OVER (RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND INTERVAL '10' SECOND FOLLOWING) AS s FROM {t}",
        "OVERJOIN_SLIDING_WINDOW_FOLLOWING",
        "OJ121",
        "FOLLOWING",
        {},
    ),
    (
        "SELECT STREAM id, LEAD(v) OVER (PARTITION BY k) AS s FROM {t}",
        "OVERJOIN_SLIDING_WINDOW_FOLLOWING",
        "OJ121",
        "LEAD",
        {"call": "LEAD(v) OVER (PARTITION BY k)"},
    ),
    (
        "SELECT STREAM id, ROW_NUMBER() OVER (PARTITION BY k) AS n FROM {t}",
        "OVERJOIN_SLIDING_WINDOW_RANKING",
        "OJ122",
        "ROW_NUMBER",
        {"function": "ROW_NUMBER", "call": "ROW_NUMBER() OVER (PARTITION BY k)"},
    ),
    (
        "SELECT STREAM id, DENSE_RANK() OVER w AS n FROM {t} WINDOW w AS (PARTITION BY k)",
        "OVERJOIN_SLIDING_WINDOW_RANKING",
        "OJ122",
        "DENSE_RANK",
        {"function": "DENSE_RANK", "call": "DENSE_RANK() OVER w"},
    ),
]


@pytest.mark.parametrize("case", range(len(REFUSALS)))
def test_a_stream_refuses_what_it_cannot_run_and_a_table_runs_it(spark, case):
    sql, condition, code, at, params = REFUSALS[case]
    name = "sw_refuse"
    make_stream(spark, name, SCHEMA)
    text = sql.format(t=name)
    with pytest.raises(AnalysisException) as e:
        spark.sql(text)
    msg = str(e.value)
    assert e.value.getCondition() == condition, msg
    assert f"[{condition}] {code}:" in msg
    for k, v in params.items():
        assert e.value.getMessageParameters()[k] == v, msg
    assert f"line 1 pos {text.index(at)}" in msg, msg
    assert "Hint:" in msg
    # Over a table it is Spark's window function, ordered by the rowtime.
    table(spark, "sw_refuse_t", gen_rows(3))
    assert len(spark.sql(sql.format(t="sw_refuse_t")).collect()) == 60


# A sliding or stagger window's interval and frame errors name that window, not a join window, in
# the JVM's message and, word for word, in `overjoin check`'s (the shared catalogue, WindowNames).
WINDOW_NAMING = [
    (
        "SELECT STREAM id, SUM(v) OVER w AS s FROM {t} WINDOW w AS (PARTITION BY k RANGE INTERVAL '1' MONTH PRECEDING)",
        "OJ101",
        "MONTH",
        "An interval of the window w uses MONTH, whose length varies: a window must have a fixed length.",
    ),
    (
        "SELECT STREAM id, SUM(v) OVER (PARTITION BY k RANGE INTERVAL 'x' SECOND PRECEDING) AS s FROM {t}",
        "OJ106",
        "'x'",
        "The interval 'x' of the window (PARTITION BY k RANGE INTERVAL 'x' SECOND PRECEDING) is not a valid SECOND"
        " value: expected a number of seconds such as '5' or '0.5'.",
    ),
    (
        "SELECT STREAM id, SUM(v) OVER w AS s FROM {t} WINDOW w AS (ROWS BETWEEN 1 PRECEDING AND 3 PRECEDING)",
        "OJ105",
        "BETWEEN",
        "The frame of the window w starts at 1 PRECEDING but ends further back, at 3 PRECEDING.",
    ),
    (
        "SELECT STREAM id, SUM(v) OVER w AS s FROM {t} WINDOW w AS (ROWS -2 PRECEDING)",
        "OJ104",
        "-2",
        "The size -2 of the window w is negative.",
    ),
    (
        "SELECT STREAM k, COUNT(*) AS c FROM {t} WINDOWED BY STAGGER (PARTITION BY k RANGE INTERVAL '1' YEAR)",
        "OJ101",
        "YEAR",
        "An interval of the window of WINDOWED BY STAGGER uses YEAR, whose length varies: a window must have a"
        " fixed length.",
    ),
]


@pytest.mark.parametrize("case", range(len(WINDOW_NAMING)))
def test_interval_and_frame_errors_name_the_sliding_or_stagger_window(spark, case):
    sql, code, at, message = WINDOW_NAMING[case]
    text = sql.format(t="sw_naming")
    make_stream(spark, "sw_naming", SCHEMA)
    with pytest.raises(AnalysisException) as e:
        spark.sql(text)
    msg = str(e.value)
    assert f"{code}: {message}" in msg, msg
    assert f"(line 1, pos {text.index(at)})" in msg, msg
    found = overjoin.validate(text)
    assert [(d.code, d.message, d.column) for d in found] == [(code, message, text.index(at) + 1)]


def test_plain_window_functions_over_tables_are_untouched(spark):
    """A window function in plain Spark SQL keeps Spark's meaning: no order is added, LAG is Spark's."""
    rows = gen_rows(5, ties=False)
    table(spark, "sw_plain", rows)
    sql = "SELECT id, LAG(v) OVER (PARTITION BY k ORDER BY rowtime) AS l, COUNT(*) OVER (PARTITION BY k) AS c FROM sw_plain"
    assert multiset(rows_of(spark.sql(sql))) == multiset(plain_spark(spark, sql))
    assert overjoin.is_active(spark)


# -- a sliding window feeds the operators above it (§12: a STEP aggregation, a join) --------------


@pytest.mark.streaming
def test_a_sliding_window_feeds_a_tumbling_aggregation(spark):
    """The sliding window's ROWTIME keeps its watermark, so a STEP aggregation above it in the same
    query closes its windows on it: the stream returns replay's closed windows."""
    name = "sw_feeds_step"
    inputs = {name: make_stream(spark, name, SCHEMA)}
    rows = [(10, 0, 1), (40, 0, 3), (70, 1, 5), (150, 0, 7), (300, 1, 1)]
    data = [{"rowtime": T0 + dt.timedelta(seconds=s), "k": k, "v": v, "id": i} for i, (s, k, v) in enumerate(rows)]
    query = (
        "SELECT STREAM ROWTIME, k, COUNT(*) AS n, MAX(a) AS m FROM "
        "(SELECT STREAM ROWTIME, k, AVG(v) OVER (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING) AS a FROM {t}) AS x "
        "GROUP BY k, STEP(x.ROWTIME BY INTERVAL '1' MINUTE)"
    )
    run = run_stream(spark, query.format(t=name), [{name: data[:3]}, {name: data[3:]}], inputs)
    minute = dt.timedelta(minutes=1)
    # Windows [9:00, 9:01) of k 0 (avg 1, then avg 2), [9:01, 9:02) of k 1, [9:02, 9:03) of k 0;
    # the window of the last row (9:05) is still open.
    want = [(T0 + minute, 0, 2, 2.0), (T0 + 2 * minute, 1, 1, 5.0), (T0 + 3 * minute, 0, 1, 7.0)]
    assert sorted(tuple(r) for r in run.rows) == want
    table(spark, "sw_feeds_step_replay", data)
    replay = sorted(rows_of(spark.sql(query.format(t="sw_feeds_step_replay"))))
    assert replay == [*want, (T0 + 6 * minute, 1, 1, 1.0)]


# -- a case for the kill -9 and cluster tests (tests/spark/test_restart.py, test_cluster.py) -------


def restart_case(
    seed: int = 37,
) -> tuple[list[dict[str, list[dict[str, Any]]]], dict[str, str], str, list[tuple[Any, ...]]]:
    """A sliding-window query over one input ``{x}`` (a RANGE SUM, a ROWS COUNT and a running SUM
    over RANGE UNBOUNDED PRECEDING, three keys, no ties, so ROWS windows need no arrival order), its
    micro-batches (two far flush rows, id -1, last), its schema and the reference model's rows
    ``(ROWTIME, id, s, c, t)``, flush rows left out."""
    rng = random.Random(seed)
    base = dt.datetime(2024, 1, 1, 9, 0)
    seconds = sorted(rng.sample(range(600), 120))
    rows = [
        {"id": i, "k": rng.randint(0, 2), "v": rng.randint(1, 9), "ts": base + dt.timedelta(seconds=s)}
        for i, s in enumerate(seconds)
    ]
    batches = [{"x": rows[i : i + 20]} for i in range(0, len(rows), 20)]
    batches += [{"x": [{"id": -1, "k": 9, "v": 0, "ts": base + dt.timedelta(hours=h)}]} for h in (5, 6)]
    sql = (
        "SELECT STREAM ROWTIME, id, SUM(v) OVER w AS s, COUNT(*) OVER (PARTITION BY k ROWS 3 PRECEDING) AS c, "
        "SUM(v) OVER (PARTITION BY k RANGE UNBOUNDED PRECEDING) AS t "
        "FROM {x} WATERMARK ts DELAY OF INTERVAL 0 SECONDS "
        "WINDOW w AS (PARTITION BY k ORDER BY ts RANGE INTERVAL '45' SECOND PRECEDING)"
    )
    by_k = lambda r: r["k"]  # noqa: E731
    sums = sliding_window(rows, "ts", Window.range(dt.timedelta(seconds=45)), [SlidingCall("SUM", "v")], by_k)
    counts = {(t, i): c for t, i, c in sliding_window(rows, "ts", Window.rows(3), [SlidingCall("COUNT")], by_k)}
    # The running total by brute force: the key's rows at or before the row (no ties).
    totals: dict[tuple[Any, Any], int] = {}
    for r in rows:
        ts: dt.datetime = r["ts"]  # type: ignore[assignment]
        totals[(ts, r["id"])] = sum(int(o["v"]) for o in rows if o["k"] == r["k"] and o["ts"] <= ts)  # type: ignore[operator, call-overload]
    expected = sorted((t, i, s, counts[(t, i)], totals[(t, i)]) for t, i, s in sums)
    return batches, {"x": "id int, k int, v int, ts timestamp"}, sql, expected
