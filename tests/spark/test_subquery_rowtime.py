"""A ``SELECT STREAM`` subquery read by another block has a ``ROWTIME`` whether or not its select
list names it (docs/semantics.md §10): behind a ``WINDOW`` clause (a sliding window's named window,
as in KDA's throttled-alerts program of the developer guide, which counts per key over a sliding
window in a subquery and filters the counts outside it) and in a tumbling aggregation (its
``ROWTIME`` the window's end). The oracle counts by brute force over the generated rows."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.reference_model import Row, step_floor
from tests.spark.streams import make_stream, run_stream

T0 = datetime(2024, 8, 1, 12, 0, 0)
SCHEMA = "id INT, ticker STRING, ROWTIME TIMESTAMP"

THROTTLED = (
    'SELECT STREAM ROWTIME, "ticker", "n" FROM (\n'
    '  SELECT STREAM "ticker", COUNT(*) OVER W1 AS "n"\n'
    "  FROM {src}\n"
    "  WINDOW W1 AS (PARTITION BY \"ticker\" RANGE INTERVAL '10' SECOND PRECEDING)\n"
    ') AS s WHERE "n" > 2'
)

PER_WINDOW = (
    "SELECT STREAM ROWTIME, ticker, n FROM (SELECT STREAM ticker, COUNT(*) AS n FROM {src} AS t "
    "GROUP BY ticker, STEP(t.ROWTIME BY INTERVAL '15' SECOND)) AS c WHERE n > 1"
)


def rows_of(seed: int, n: int) -> list[Row]:
    rng = random.Random(seed)
    t = T0
    rows = []
    for i in range(n):
        t += timedelta(milliseconds=rng.randint(200, 3000))  # distinct rowtimes
        rows.append({"id": i, "ticker": rng.choice("XYZ"), "ROWTIME": t})
    return rows


def throttled_model(rows: list[Row]) -> list[tuple]:
    out = []
    for r in rows:
        n = sum(
            1
            for o in rows
            if o["ticker"] == r["ticker"] and r["ROWTIME"] - timedelta(seconds=10) <= o["ROWTIME"] <= r["ROWTIME"]
        )
        if n > 2:
            out.append((r["ROWTIME"], r["ticker"], n))
    return sorted(out)


def per_window_model(rows: list[Row], at_least: int = 2) -> list[tuple]:
    size = timedelta(seconds=15)
    counts = Counter((step_floor(r["ROWTIME"], size) + size, r["ticker"]) for r in rows)
    return sorted((end, k, n) for (end, k), n in counts.items() if n >= at_least)


def test_over_tables(spark: Any) -> None:
    rows = rows_of(1, 120)
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("sub_t")
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    try:
        got = sorted(tuple(r) for r in spark.sql(THROTTLED.format(src='"sub_t"')).collect())
    finally:
        spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")
    assert got == throttled_model(rows) and got
    got = sorted(tuple(r) for r in spark.sql(PER_WINDOW.format(src="sub_t")).collect())
    assert got == per_window_model(rows) and got


@pytest.mark.streaming
def test_on_a_stream(spark: Any) -> None:
    rows = rows_of(2, 150)
    batches = [rows[i : i + 30] for i in range(0, len(rows), 30)]
    src = make_stream(spark, "sub_s", SCHEMA)
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    try:
        run = run_stream(spark, THROTTLED.format(src="STREAM sub_s"), [{"sub_s": b} for b in batches], {"sub_s": src})
    finally:
        spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")
    last = rows[-1]["ROWTIME"]
    # A row leaves once the watermark (the latest rowtime) passes it: all but the last.
    assert sorted(tuple(r) for r in run.rows) == [g for g in throttled_model(rows) if g[0] < last]
    src2 = make_stream(spark, "sub_s2", SCHEMA)
    run = run_stream(spark, PER_WINDOW.format(src="STREAM sub_s2"), [{"sub_s2": b} for b in batches], {"sub_s2": src2})
    assert sorted(tuple(r) for r in run.rows) == [g for g in per_window_model(rows) if g[0] <= last]


VIEW = "CREATE OR REPLACE TEMP VIEW {view} AS SELECT STREAM ROWTIME, ticker, id FROM {src} WHERE id % 3 <> 0"
IMPLICIT = "CREATE OR REPLACE TEMP VIEW {view} AS SELECT STREAM ticker, id FROM {src} WHERE id % 3 <> 0"


def test_a_stateful_block_over_a_view_of_select_stream_times_its_rows_once(spark: Any) -> None:
    """A view of a SELECT STREAM query that only projects and filters (s-Server's and KDA's
    intermediate views), read by a STEP window: the window's watermark replaces the view's own
    (Spark's view columns hide it, and two on one stream fail as a redefinition once rows flow).
    A view whose select list names no ROWTIME has one all the same, as every s-Server stream, which
    a window reads; `SELECT *` of it is the columns its select list names (semantics.md §10). Over
    a table and on a stream, against the model."""
    rows = rows_of(3, 120)
    kept = [r for r in rows if r["id"] % 3 != 0]
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("view_t")
    spark.sql(VIEW.format(view="view_v", src="view_t"))
    assert spark.table("view_v").columns == ["ROWTIME", "ticker", "id"]
    spark.sql(IMPLICIT.format(view="view_no_rowtime", src="view_t"))
    assert spark.table("view_no_rowtime").columns == ["ticker", "id"]
    got = sorted(tuple(r) for r in spark.sql(PER_WINDOW.format(src="view_v")).collect())
    assert got == per_window_model(kept) and got
    assert sorted(tuple(r) for r in spark.sql(PER_WINDOW.format(src="view_no_rowtime")).collect()) == got

    batches = [rows[i : i + 30] for i in range(0, len(rows), 30)]
    src = make_stream(spark, "view_s", SCHEMA)
    spark.sql(VIEW.format(view="view_sv", src="view_s"))
    run = run_stream(spark, PER_WINDOW.format(src="view_sv"), [{"view_s": b} for b in batches], {"view_s": src})
    last = rows[-1]["ROWTIME"]
    assert sorted(tuple(r) for r in run.rows) == [g for g in per_window_model(kept) if g[0] <= last]
    src = make_stream(spark, "view_s2", SCHEMA)
    spark.sql(IMPLICIT.format(view="view_sv2", src="view_s2"))
    run = run_stream(spark, PER_WINDOW.format(src="view_sv2"), [{"view_s2": b} for b in batches], {"view_s2": src})
    assert sorted(tuple(r) for r in run.rows) == [g for g in per_window_model(kept) if g[0] <= last]


def test_a_view_without_rowtime_over_a_join_and_a_window_has_the_rows_rowtime(spark: Any) -> None:
    """The ROWTIME a view of a SELECT STREAM query has without naming it is its query's output
    ROWTIME: a windowed join's (the left row's, §4) and a STEP window's end (§11), read by a
    streaming block, checked over tables against brute-force models; the same for a persistent
    view (Spark parses the view's stored text again); `SELECT *` of each is its named columns."""
    rows = rows_of(4, 90)
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("vj_t")
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW vj_pairs AS SELECT STREAM a.id AS a_id, b.id AS b_id "
        "FROM vj_t AS a JOIN vj_t OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS b "
        "ON a.ticker = b.ticker AND a.id <> b.id"
    )
    assert spark.table("vj_pairs").columns == ["a_id", "b_id"]
    got = sorted(tuple(r) for r in spark.sql("SELECT STREAM ROWTIME, a_id, b_id FROM vj_pairs").collect())
    expected = sorted(
        (a["ROWTIME"], a["id"], b["id"])
        for a in rows
        for b in rows
        if a["ticker"] == b["ticker"]
        and a["id"] != b["id"]
        and a["ROWTIME"] - timedelta(seconds=5) <= b["ROWTIME"] <= a["ROWTIME"]
    )
    assert got == expected and got
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW vj_counts AS SELECT STREAM ticker, COUNT(*) AS n FROM vj_t AS t "
        "GROUP BY ticker, STEP(t.ROWTIME BY INTERVAL '15' SECOND)"
    )
    counted = sorted(tuple(r) for r in spark.sql("SELECT STREAM ROWTIME, ticker, n FROM vj_counts").collect())
    assert counted == per_window_model(rows, at_least=1)
    spark.createDataFrame(rows, SCHEMA).write.mode("overwrite").saveAsTable("vj_stored")
    try:
        spark.sql(IMPLICIT.format(view="vj_persistent", src="vj_stored").replace("TEMP VIEW", "VIEW"))
        assert spark.table("vj_persistent").columns == ["ticker", "id"]
        stored = sorted(tuple(r) for r in spark.sql(PER_WINDOW.format(src="vj_persistent")).collect())
        assert stored == per_window_model([r for r in rows if r["id"] % 3 != 0])
    finally:
        spark.sql("DROP VIEW IF EXISTS vj_persistent")
        spark.sql("DROP TABLE IF EXISTS vj_stored")
