"""Running aggregates: a sliding window ``UNBOUNDED PRECEDING`` on a stream (docs/semantics.md §12).

KDA runs windows that end with the current row, a running total per key among them
(``SUM(v) OVER (PARTITION BY k RANGE UNBOUNDED PRECEDING)``). On a stream each key keeps the
aggregation buffers of its emitted rows, not the rows, so the state grows with keys. Checked:

* over tables, the rows equal a brute-force model (every earlier row of the key, peers included for
  RANGE) and Spark's own window functions;
* on a stream, in order and out of order (late rows dropped and in no later row's window), the rows
  equal the model over the rows that were not late, and replay over them;
* a stop and restart from the checkpoint loses and duplicates nothing (the kill -9 and cluster
  runs take the same frame: tests/spark/test_sliding_windows.py ``restart_case``);
* the state holds a key's buffers, not its rows: flat over a ten times longer stream;
* what still cannot run on a stream (no frame at all, a function that is not an aggregate over its
  rows, a frame not ending at the current row) is refused at its text, OJ120.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.spark.streams import make_stream, run_stream
from tests.spark.test_sliding_windows import (
    FLUSH_KEY,
    SCHEMA,
    batches_of,
    flush,
    gen_rows,
    on_time,
    plain_spark,
    stop_and_restart_rows,
    table,
)

QUERY = (
    "SELECT STREAM rowtime, id, COUNT(*) OVER r AS c, SUM(v) OVER r AS s, MIN(v) OVER r AS mn, "
    "MAX(v) OVER r AS mx, AVG(v) OVER r AS av, COUNT(v) OVER (PARTITION BY k ROWS UNBOUNDED PRECEDING) AS cr, "
    "SUM(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sr, "
    "SUM(v) OVER (PARTITION BY k RANGE INTERVAL '30' SECOND PRECEDING) AS s30 "
    "FROM {t} WINDOW r AS (PARTITION BY k RANGE UNBOUNDED PRECEDING)"
)
SPARKS = (
    "SELECT rowtime, id, COUNT(*) OVER r, SUM(v) OVER r, MIN(v) OVER r, MAX(v) OVER r, AVG(v) OVER r, "
    "COUNT(v) OVER (PARTITION BY k ORDER BY rowtime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
    "SUM(v) OVER (PARTITION BY k ORDER BY rowtime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
    "SUM(v) OVER (PARTITION BY k ORDER BY rowtime RANGE BETWEEN INTERVAL '30' SECOND PRECEDING AND CURRENT ROW) "
    "FROM {t} WINDOW r AS (PARTITION BY k ORDER BY rowtime RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
)


def model(rows: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each row's aggregates by brute force: RANGE over the key's rows at or before its rowtime,
    ROWS over the key's rows up to it in rowtime order (no ties within a key), the 30 s RANGE too."""
    out = []
    for r in rows:
        same = [o for o in rows if o["k"] == r["k"]]
        upto = [o for o in same if o["rowtime"] <= r["rowtime"]]
        vals = [o["v"] for o in upto if o["v"] is not None]
        last30 = [
            o["v"] for o in upto if o["v"] is not None and o["rowtime"] >= r["rowtime"] - dt.timedelta(seconds=30)
        ]
        out.append(
            (
                r["rowtime"],
                r["id"],
                len(upto),
                sum(vals) if vals else None,
                min(vals) if vals else None,
                max(vals) if vals else None,
                round(sum(vals) / len(vals), 6) if vals else None,
                len(vals),
                sum(vals) if vals else None,
                sum(last30) if last30 else None,
            )
        )
    return sorted(out, key=_key)


def _key(t: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0,) if v is None else (1, str(v)) for v in t)


def rounded(rows: Iterable[Any]) -> list[tuple[Any, ...]]:
    return sorted((tuple(round(x, 6) if isinstance(x, float) else x for x in r) for r in rows), key=_key)


@pytest.mark.parametrize("seed", [61, 62, 63])
def test_over_tables_the_model_and_sparks_own(spark, seed):
    rows = gen_rows(seed, n=80, ties=False)
    table(spark, "run_t", rows)
    got = rounded(spark.sql(QUERY.format(t="run_t")).collect())
    assert got == model(rows), f"seed {seed}"
    assert got == rounded(plain_spark(spark, SPARKS.format(t="run_t"))), f"seed {seed}"


@pytest.mark.streaming
@pytest.mark.parametrize(("seed", "shuffle"), [(64, False), (65, True)])
def test_on_a_stream_the_rows_that_were_not_late(spark, seed, shuffle):
    rows = gen_rows(seed, n=80, ties=False)
    batches = [*batches_of(rows, seed, 11, shuffle), flush(0), flush(1)]
    kept, late = on_time(batches)
    kept = [r for r in kept if r["k"] != FLUSH_KEY]
    assert (late > 0) == shuffle
    name = f"run_s_{seed}"
    run = run_stream(
        spark, QUERY.format(t=name), [{name: b} for b in batches], {name: make_stream(spark, name, SCHEMA)}
    )
    got = rounded(r for r in run.rows if r[1] < 10_000)
    assert got == model(kept), f"seed {seed}"
    table(spark, "run_replay", kept)
    assert got == rounded(spark.sql(QUERY.format(t="run_replay")).collect()), f"seed {seed}"
    dropped = sum(op["numRowsDroppedByWatermark"] for p in run.progress for op in p["stateOperators"])
    assert dropped == late


@pytest.mark.streaming
@pytest.mark.parametrize("store", ["hdfs", "rocksdb"])
def test_stop_and_restart_keeps_the_running_buffers(spark, store):
    """On the default (HDFS-backed) store and on RocksDB: the buffers are the state value's third
    column, read back from the stored bytes."""
    seed = 66
    rows = gen_rows(seed, n=90, ties=False)
    batches = [*batches_of(rows, seed, 10, shuffle=True), flush(0), flush(1)]
    kept, _ = on_time(batches)
    kept = [r for r in kept if r["k"] != FLUSH_KEY]
    out = stop_and_restart_rows(spark, f"run_restart_{store}", QUERY, batches, store)
    assert rounded(r for r in out if r[1] < 10_000) == model(kept)


@pytest.mark.streaming
def test_state_holds_buffers_per_key_not_rows(spark):
    """A running COUNT alone: the state holds only the rows waiting for the watermark
    (numRowsTotal counts held rows), however long the stream, and every key's count goes on
    across batches."""
    name = "run_flat"
    inputs = {name: make_stream(spark, name, SCHEMA)}
    batches = [
        {
            name: [
                {"rowtime": T(b, s), "k": k, "v": 1, "id": b * 100 + s * 3 + k}
                for s in range(0, 10, 2)
                for k in range(3)
            ]
        }
        for b in range(12)
    ]
    run = run_stream(
        spark,
        f"SELECT STREAM id, k, COUNT(*) OVER (PARTITION BY k ROWS UNBOUNDED PRECEDING) AS n FROM {name}",
        batches,
        inputs,
    )
    counts = sorted(r[2] for r in run.rows if r[1] == 0)
    assert counts == list(range(1, len(counts) + 1)) and len(counts) == 12 * 5 - 1  # the last waits
    held = [op["numRowsTotal"] for p in run.progress for op in p["stateOperators"]]
    # At most one batch's rows and the last batch's latest ones wait for the watermark; none of
    # the emitted rows stays, so the second half of the stream holds no more than the first.
    assert held and max(held) <= 3 * 5 + 3, held
    assert max(held[len(held) // 2 :]) <= max(held[: len(held) // 2]), held


def T(batch: int, second: int) -> dt.datetime:
    return dt.datetime(2024, 3, 1, 9, 0, 0) + dt.timedelta(seconds=10 * batch + second)


REFUSED = [
    ("SELECT STREAM id, SUM(v) OVER w AS s FROM {t} WINDOW w AS (PARTITION BY k)", "(PARTITION BY k)"),
    (
        "SELECT STREAM id, COLLECT_LIST(v) OVER (PARTITION BY k ROWS UNBOUNDED PRECEDING) AS l FROM {t}",
        "UNBOUNDED",
    ),
    (
        "SELECT STREAM id, SUM(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS s FROM {t}",
        "UNBOUNDED",
    ),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_what_a_stream_still_cannot_run_is_refused(spark, case):
    sql, at = REFUSED[case]
    make_stream(spark, "run_refused", SCHEMA)
    text = sql.format(t="run_refused")
    with pytest.raises(AnalysisException) as e:
        spark.sql(text)
    assert e.value.getCondition() == "OVERJOIN_SLIDING_WINDOW_UNBOUNDED", str(e.value)
    assert f"line 1 pos {text.index(at)}" in str(e.value)
    rows = gen_rows(67, n=20)
    table(spark, "run_refused_t", rows)
    assert len(spark.sql(sql.format(t="run_refused_t")).collect()) == 20  # a table runs it
