"""``ORDER BY`` in a streaming block (docs/semantics.md §11, "Sorting a stream"): KDA's streaming
sort, whose first expression is the span of time to sort within (``ROWTIME``, or ``STEP``/``FLOOR``
of it) and the rest the order within each span.

As printed in published KDA applications: ``ORDER BY FLOOR("TEMP_STREAM".ROWTIME TO SECOND),
ANOMALY_SCORE DESC`` over rows, and ``ORDER BY STEP(weblogs.ROWTIME BY INTERVAL '10' SECOND),
page_count DESC`` after a tumbling window. The oracle is Python's ``sorted`` over the generated rows
(and the tumbling groups counted in Python), and the release rule computed from the rows fed so far:
a span leaves once the watermark (latest rowtime less the lateness, less Spark's millisecond) has
reached its last instant.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.spark.streams import make_stream, run_stream, run_with_restart, setting

pytestmark = pytest.mark.streaming

T0 = datetime(2024, 5, 6, 7, 0, 0)
MS = timedelta(milliseconds=1)
SCHEMA = "ROWTIME TIMESTAMP, id INT, page STRING, score DOUBLE"
LATENESS = timedelta(seconds=2)


def generated(seed: int, n: int = 90) -> list[dict[str, Any]]:
    """Rows over about 40 s, ms-precise rowtimes, arriving out of order within the lateness."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for i in range(n):
        t = T0 + rng.randrange(40_000) * MS
        rows.append({"ROWTIME": t, "id": i, "page": rng.choice("abcd"), "score": rng.randint(0, 40) / 4})
    rows.sort(key=lambda r: r["ROWTIME"])
    # Shuffle within 1.5 s: never later than the 2 s lateness.
    out: list[dict[str, Any]] = []
    for b in range(40):
        bucket = [r for r in rows if int((r["ROWTIME"] - T0) / timedelta(milliseconds=1500)) == b]
        out += rng.sample(bucket, len(bucket))
    assert len(out) == n
    return out


def second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def spark_watermark_us(fed: list[dict[str, Any]]) -> int:
    """Spark's watermark after these rows, in microseconds: latest rowtime less the lateness, less
    the millisecond overjoin adds (docs/semantics.md §8)."""
    latest = max(r["ROWTIME"] for r in fed)
    return int(((latest - T0) - LATENESS - MS) / timedelta(microseconds=1))


def us(t: datetime) -> int:
    return int((t - T0) / timedelta(microseconds=1))


def feed(spark: Any, sql: str, rows: list[dict[str, Any]], view: str, size: int = 20):
    src = make_stream(spark, view, SCHEMA)
    batches = [rows[i : i + size] for i in range(0, len(rows), size)]
    # Two far rows: the watermark passes every span.
    far = [{"ROWTIME": T0 + timedelta(hours=1), "id": -1, "page": "z", "score": 0.0}]
    farther = [{"ROWTIME": T0 + timedelta(hours=2), "id": -2, "page": "z", "score": 0.0}]
    with setting(spark, "spark.overjoin.lateness", "2 seconds"):
        run = run_stream(spark, sql, [{view: b} for b in [*batches, far, farther]], {view: src})
    return batches, run


@pytest.mark.parametrize("seed", [1, 2])
def test_rows_sorted_within_each_second_as_a_kda_anomaly_program_sorts(spark, seed):
    """`ORDER BY FLOOR(s.ROWTIME TO SECOND), score DESC, id`: each second's rows leave together, once
    the watermark has passed the second, sorted by score; the whole output is the rows sorted."""
    rows = generated(seed)
    sql = 'SELECT STREAM ROWTIME, id, score FROM "ob_rows" ORDER BY FLOOR("ob_rows".ROWTIME TO SECOND), score DESC, id'
    batches, run = feed(spark, sql, rows, "ob_rows")
    got = [(r.ROWTIME, r.id, r.score) for r in run.rows if r.id >= 0]
    key = lambda r: (second(r["ROWTIME"]), -r["score"], r["id"])  # noqa: E731
    assert got == [(r["ROWTIME"], r["id"], r["score"]) for r in sorted(rows, key=key)]
    # Each second leaves in the step after which the watermark reached its last instant.
    fed: list[dict[str, Any]] = []
    out: set[int] = set()
    for b, emitted in zip(batches, run.batches):
        fed += b
        mark = spark_watermark_us(fed)
        ready = {r["id"] for r in fed if us(second(r["ROWTIME"]) + timedelta(seconds=1)) - 1 <= mark}
        out |= {r.id for r in emitted}
        assert out == ready
        assert [key(r.asDict() | {"ROWTIME": r.ROWTIME}) for r in emitted] == sorted(
            key(r.asDict() | {"ROWTIME": r.ROWTIME}) for r in emitted
        )


def test_rows_sorted_by_rowtime_then_a_column(spark):
    """`ORDER BY ROWTIME, page DESC`: a row leaves once the watermark reaches its ROWTIME."""
    rows = generated(3)
    sql = "SELECT STREAM ROWTIME, id, page FROM ob_rt ORDER BY ROWTIME, page DESC, id"
    batches, run = feed(spark, sql, rows, "ob_rt")
    got = [(r.ROWTIME, r.id, r.page) for r in run.rows if r.id >= 0]
    want = sorted(rows, key=lambda r: (r["ROWTIME"], [-ord(c) for c in r["page"]], r["id"]))
    assert got == [(r["ROWTIME"], r["id"], r["page"]) for r in want]
    fed: list[dict[str, Any]] = []
    out: set[int] = set()
    for b, emitted in zip(batches, run.batches):
        fed += b
        mark = spark_watermark_us(fed)
        out |= {r.id for r in emitted}
        assert out == {r["id"] for r in fed if us(r["ROWTIME"]) <= mark}


def test_a_sorted_subquery_that_names_no_rowtime_still_gives_its_rows_theirs(spark):
    """A ``SELECT STREAM`` subquery with a streaming ORDER BY and no ROWTIME in its select list: the
    block reading it still has each row's ROWTIME (the input's, §10), and its rows come sorted."""
    rows = generated(5)
    sql = (
        "SELECT STREAM ROWTIME, id, page FROM (SELECT STREAM id, page FROM ob_sub ORDER BY ROWTIME, id) AS s "
        "WHERE page <> 'b'"
    )
    _, run = feed(spark, sql, rows, "ob_sub")
    got = [(r.ROWTIME, r.id, r.page) for r in run.rows if r.id >= 0]
    want = sorted((r for r in rows if r["page"] != "b"), key=lambda r: (r["ROWTIME"], r["id"]))
    assert got == [(r["ROWTIME"], r["id"], r["page"]) for r in want]


def test_columns_whose_names_differ_only_in_case_keep_their_own_values(spark):
    """A sorted stream whose select list has a literal named 'Score' beside the column score (KDA's
    fan-out pumps select a metric's name as a literal) and a column twice: each output column holds
    its own values. The rows cross the sort's operator by column position, not by name."""
    rows = generated(6)
    sql = (
        "SELECT STREAM STEP(ob_case.ROWTIME BY INTERVAL '10' SECOND) AS w, 'Score', score, id, id "
        "FROM ob_case ORDER BY STEP(ob_case.ROWTIME BY INTERVAL '10' SECOND), score DESC, id"
    )
    _, run = feed(spark, sql, rows, "ob_case")
    got = [tuple(r) for r in run.rows if r[3] >= 0]

    def ten(t: datetime) -> datetime:
        return t.replace(second=t.second - t.second % 10, microsecond=0)

    want = sorted(rows, key=lambda r: (ten(r["ROWTIME"]), -r["score"], r["id"]))
    assert got == [(ten(r["ROWTIME"]), "Score", r["score"], r["id"], r["id"]) for r in want]


def window_groups(rows: list[dict[str, Any]], size: timedelta) -> list[tuple[datetime, str, int]]:
    """(window start, page, count) of each tumbling window of `size`, counted in Python."""
    step = int(size / timedelta(microseconds=1))
    counts = Counter((T0 + timedelta(microseconds=us(r["ROWTIME"]) // step * step), r["page"]) for r in rows)
    return [(start, page, n) for (start, page), n in counts.items()]


def test_groups_of_a_tumbling_window_sorted_as_a_kda_web_analytics_program_sorts(spark):
    """`GROUP BY STEP(w.ROWTIME BY 10 s), page ORDER BY STEP(w.ROWTIME BY 10 s), n DESC, page`: each
    window's groups leave in one micro-batch, sorted by count; the whole output is sorted."""
    rows = generated(4, n=120)
    sql = (
        "SELECT STREAM w.page AS page, COUNT(*) AS n, STEP(w.ROWTIME BY INTERVAL '10' SECOND) AS ws "
        "FROM ob_tw w GROUP BY STEP(w.ROWTIME BY INTERVAL '10' SECOND), w.page "
        "ORDER BY STEP(w.ROWTIME BY INTERVAL '10' SECOND), n DESC, page"
    )
    _, run = feed(spark, sql, rows, "ob_tw")
    got = [(r.ws, r.page, r.n) for r in run.rows if r.page != "z"]
    want = sorted(window_groups(rows, timedelta(seconds=10)), key=lambda g: (g[0], -g[2], g[1]))
    assert got == want
    for emitted in run.batches:
        keys = [(r.ws, -r.n, r.page) for r in emitted]
        assert keys == sorted(keys)


def test_groups_sorted_by_their_rowtime_the_window_end(spark):
    """After a tumbling window, `ROWTIME` in the ORDER BY is the window's end; HAVING filters."""
    rows = generated(5, n=120)
    sql = (
        "SELECT STREAM ROWTIME, page, COUNT(*) AS n FROM ob_te GROUP BY page, FLOOR(ROWTIME TO MINUTE) "
        "HAVING COUNT(*) > 1 ORDER BY ROWTIME, n DESC, page"
    )
    _, run = feed(spark, sql, rows, "ob_te")
    got = [(r.ROWTIME, r.page, r.n) for r in run.rows if r.page != "z"]
    groups = window_groups(rows, timedelta(minutes=1))
    want = sorted(((s + timedelta(minutes=1), p, n) for s, p, n in groups if n > 1), key=lambda g: (g[0], -g[2], g[1]))
    assert got == want and len(want) > 3


@pytest.mark.parametrize(
    ("sql", "table_sort"),
    [
        ("SELECT STREAM ROWTIME, id, score FROM {v} ORDER BY FLOOR({v}.ROWTIME TO SECOND), score DESC, id",
         lambda r: (second(r["ROWTIME"]), -r["score"], r["id"])),
        ("SELECT STREAM id, score FROM {v} ORDER BY ROWTIME DESC, id", lambda r: (-us(r["ROWTIME"]), r["id"])),
        ("SELECT STREAM id, score FROM {v} ORDER BY score, id", lambda r: (r["score"], r["id"])),
    ],
)  # fmt: skip
def test_over_tables_the_same_order_is_a_sort(spark, sql, table_sort):
    """Replay: the whole result sorted, any ORDER BY allowed (a stream refuses the last two)."""
    rows = generated(6)
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("ob_table")
    got = [r.id for r in spark.sql(sql.format(v="ob_table")).collect()]
    assert got == [r["id"] for r in sorted(rows, key=table_sort)]


@pytest.mark.parametrize(
    ("order", "first"),
    [("score DESC, id", "score"), ("FLOOR(ROWTIME TO SECOND) DESC, id", "FLOOR(ROWTIME TO SECOND)"), ("id", "id")],
)
def test_over_a_stream_an_order_that_does_not_start_with_its_span_is_refused(spark, order, first):
    make_stream(spark, "ob_bad", SCHEMA)
    sql = f"SELECT STREAM id, score FROM ob_bad ORDER BY {order}"
    with pytest.raises(AnalysisException) as e:
        spark.sql(sql)
    assert e.value.getCondition() == "OVERJOIN_STREAM_ORDER_BY"
    message = str(e.value)
    assert "OJ123" in message and f"starts with {first}" in message
    # Where the ORDER BY's first expression is, in the user's text (0-based, as Spark writes it).
    assert f"line 1 pos {sql.index(' ORDER BY ') + len(' ORDER BY ')}" in message


def test_a_sorted_stream_restarts_from_its_checkpoint_without_losing_or_repeating_a_row(spark):
    """Rows waiting for their second to close are state: stopped and started again from the
    checkpoint between batches, the query still gives every row once, in order."""
    rows = generated(7)
    src = make_stream(spark, "ob_restart", SCHEMA)
    sql = "SELECT STREAM ROWTIME, id, score FROM ob_restart ORDER BY FLOOR(ROWTIME TO SECOND), score DESC, id"
    batches = [rows[i : i + 15] for i in range(0, len(rows), 15)]
    batches += [[{"ROWTIME": T0 + timedelta(hours=1), "id": -1, "page": "z", "score": 0.0}]]
    batches += [[{"ROWTIME": T0 + timedelta(hours=2), "id": -2, "page": "z", "score": 0.0}]]
    with setting(spark, "spark.overjoin.lateness", "2 seconds"):
        collected = [(r.ROWTIME, r.id, r.score) for r in run_with_restart(spark, sql, src, batches, stop_after=3)]
    got = [c for c in collected if c[1] >= 0]
    key = lambda r: (second(r["ROWTIME"]), -r["score"], r["id"])  # noqa: E731
    assert got == [(r["ROWTIME"], r["id"], r["score"]) for r in sorted(rows, key=key)]
