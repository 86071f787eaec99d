"""Calcite's streaming SQL windows (docs/semantics.md §11): ``CEIL(ROWTIME TO unit)`` and the group
windows ``TUMBLE``, ``HOP`` and ``SESSION`` with ``TUMBLE_START``/``TUMBLE_END`` and the like,
against the reference model, over tables (replay) and as streams.

``CEIL(ts TO unit)`` rounds up to the end of the unit and leaves a time on a boundary as it is, so
``GROUP BY CEIL(ROWTIME TO HOUR)`` puts a row at 11:00:00 in the group of 11:00 (the hour before
it), where ``FLOOR`` and ``TUMBLE`` put it in the hour after. A hopping window puts each row in
every window that holds it. A stream emits each group once, when Spark's watermark (whole
milliseconds, held one millisecond back so that a row at the watermark is not late, §8) reaches
its end: exactly replay's groups whose end the watermark has reached.

Seeds: ``OVERJOIN_CALCITE_SEEDS`` scales the tables' generated cases (6, 6 and 4 by default),
``OVERJOIN_CALCITE_STREAM_SEEDS`` the streams' (2 per kind of window).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.reference_model import (
    Row,
    hop_windows,
    hopping_groups,
    session_groups,
    tumbling_groups,
    unit_ceil,
    unit_floor,
)
from tests.seeds import count
from tests.spark.errors import caret_column
from tests.spark.streams import make_stream, run_stream, run_with_restart, setting

T0 = datetime(2024, 3, 30, 22, 0, 0)  # a month end and a week end nearby
SEC = timedelta(seconds=1)
MS = timedelta(milliseconds=1)
UNITS = ["SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]
SCHEMA = "id INT, k INT, v INT, ROWTIME TIMESTAMP"

# Interval spellings and their lengths (the same length written differently in places).
SIZES = {
    "INTERVAL '10' SECOND": 10 * SEC,
    "INTERVAL '15' SECOND": 15 * SEC,
    "INTERVAL '1' MINUTE": 60 * SEC,
    "INTERVAL '60' SECOND": 60 * SEC,
    "INTERVAL '90' SECOND": 90 * SEC,
    "INTERVAL '1:30' MINUTE TO SECOND": 90 * SEC,
    "INTERVAL 2 MINUTES": 120 * SEC,
    "20s": 20 * SEC,
}


def generated_rows(
    rng: random.Random,
    n: int,
    spread: timedelta,
    snap: Callable[[datetime], datetime] | None = None,
    nulls: bool = True,
) -> list[Row]:
    """Rows at random microseconds after T0; with ``snap``, a third of them moved onto a boundary."""
    rows: list[Row] = []
    for i in range(n):
        t = T0 + timedelta(microseconds=rng.randrange(int(spread / timedelta(microseconds=1))))
        if snap is not None and rng.random() < 1 / 3:
            t = snap(t)
        rows.append({"id": i, "k": rng.randint(0, 2), "v": rng.randint(-5, 9), "ROWTIME": t})
    if nulls:
        rows.append({"id": n, "k": 0, "v": 1, "ROWTIME": None})
    return rows


def table(spark: Any, name: str, rows: list[Row]) -> None:
    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView(name)


def collect(spark: Any, sql: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def summaries(groups: dict[tuple[Any, ...], list[Row]]) -> list[tuple]:
    """``(end, start, k, COUNT(*), SUM(v), MAX(ROWTIME))`` of each group of the model."""
    return sorted(
        (end, start, k, len(g), sum(r["v"] for r in g), max(r["ROWTIME"] for r in g))
        for (end, start, k), g in groups.items()
    )


def spark_watermark(seen: list[Row], lateness: timedelta) -> datetime:
    """The watermark a stream holds after ``seen``: the latest rowtime less the lateness, in Spark's
    whole milliseconds, one millisecond back (a row at the watermark is not late, §8)."""
    latest = max(r["ROWTIME"] for r in seen)
    return latest.replace(microsecond=latest.microsecond // 1000 * 1000) - lateness - MS


# ---- CEIL(ts TO unit) ---------------------------------------------------------------------------


@pytest.mark.parametrize("unit", UNITS)
def test_ceil_is_the_end_of_the_unit_and_a_boundary_is_its_own_ceiling(spark, unit: str) -> None:
    """``CEIL(ts TO unit)`` and ``CEILING``, singular or plural unit: the first start of a unit at
    or after ``ts``; ``CEIL(x)`` without TO is Spark's."""
    rng = random.Random(unit)
    spread = {"SECOND": 20 * SEC, "MINUTE": timedelta(minutes=20)}.get(unit, timedelta(days=800))
    rows = generated_rows(rng, 60, spread, snap=lambda t: unit_floor(t, unit)[0], nulls=False)
    assert any(r["ROWTIME"] == unit_floor(r["ROWTIME"], unit)[0] for r in rows)  # boundaries are tested
    table(spark, "ceil_t", rows)
    got = spark.sql(
        f"SELECT STREAM id, CEIL(ROWTIME TO {unit}) AS c, CEILING(s.ROWTIME TO {unit}S) AS c2, CEIL(v / 2.0) AS plain "
        "FROM ceil_t AS s"
    ).collect()
    by_id = {r["id"]: r for r in rows}
    assert len(got) == len(rows)
    for r in got:
        t = by_id[r["id"]]["ROWTIME"]
        assert r["c"] == r["c2"] == unit_ceil(t, unit), (t, r)
        assert r["plain"] == -(-by_id[r["id"]]["v"] // 2)  # Spark's ceil of a number


@pytest.mark.parametrize("unit", UNITS)
def test_ceil_groups_over_a_table_match_the_model(spark, unit: str) -> None:
    """``GROUP BY k, CEIL(ROWTIME TO unit)``: a group per value of CEIL, its window ``(end - 1 unit,
    end]``; ``ROWTIME`` and the CEIL in the select list are both its end."""
    rng = random.Random("group" + unit)
    spread = {"SECOND": 20 * SEC, "MINUTE": timedelta(minutes=20)}.get(unit, timedelta(days=800))
    rows = generated_rows(rng, 80, spread, snap=lambda t: unit_floor(t, unit)[0])
    table(spark, "ceil_t", rows)
    ceil = f"CEIL(ROWTIME TO {unit})"
    got = collect(
        spark,
        f"SELECT STREAM ROWTIME, {ceil} AS c, k, COUNT(*) AS n, SUM(v) AS total, MAX(s.ROWTIME) AS latest "
        f"FROM ceil_t AS s GROUP BY k, {ceil}",
    )
    expected = summaries(tumbling_groups(rows, "ROWTIME", lambda t: (unit_ceil(t, unit),) * 2, lambda r: (r["k"],)))
    assert got == expected


def test_ceil_and_tumble_differ_only_for_rows_on_a_boundary(spark) -> None:
    """Calcite's guide says ``GROUP BY CEIL(rowtime TO HOUR)`` and ``TUMBLE(rowtime, INTERVAL '1'
    HOUR)`` return the same rows; they do for rows off the hour. A row at 11:00:00 is in CEIL's group
    of 11:00 and in TUMBLE's window [11:00, 12:00), ending at 12:00."""
    rng = random.Random(11)
    rows = generated_rows(rng, 70, timedelta(hours=7), snap=lambda t: unit_floor(t, "HOUR")[0], nulls=False)
    ceil_sql = (
        "SELECT STREAM CEIL(rowtime TO HOUR) AS rowtime, k, COUNT(*) AS c, SUM(v) AS units FROM {t} "
        "GROUP BY CEIL(rowtime TO HOUR), k"
    )
    tumble_sql = (
        "SELECT STREAM TUMBLE_END(rowtime, INTERVAL '1' HOUR) AS rowtime, k, COUNT(*) AS c, SUM(v) AS units "
        "FROM {t} GROUP BY TUMBLE(rowtime, INTERVAL '1' HOUR), k"
    )
    off = [r for r in rows if r["ROWTIME"] != unit_floor(r["ROWTIME"], "HOUR")[0]]
    on = [r for r in rows if r["ROWTIME"] == unit_floor(r["ROWTIME"], "HOUR")[0]]
    assert on and off
    table(spark, "ceil_off", off)
    assert collect(spark, ceil_sql.format(t="ceil_off")) == collect(spark, tumble_sql.format(t="ceil_off"))
    table(spark, "ceil_all", rows)
    by_ceil = collect(spark, ceil_sql.format(t="ceil_all"))
    by_tumble = collect(spark, tumble_sql.format(t="ceil_all"))
    assert by_ceil != by_tumble
    for r in on:  # each row on the hour counts in the group ending at it, and in TUMBLE's an hour later
        assert any(g[0] == r["ROWTIME"] and g[1] == r["k"] for g in by_ceil)
        assert any(g[0] == r["ROWTIME"] + timedelta(hours=1) and g[1] == r["k"] for g in by_tumble)


# ---- TUMBLE, HOP and SESSION over tables ----------------------------------------------------------


def alignment(rng: random.Random) -> tuple[str, timedelta]:
    """No alignment, or a TIME literal and the time of day it is."""
    choice = rng.choice([None, "0:12", "00:00:07", "23:59:59.5", "0:00"])
    if choice is None:
        return "", timedelta(0)
    parts = [float(p) for p in choice.split(":")]
    seconds = parts[0] * 3600 + parts[1] * 60 + (parts[2] if len(parts) > 2 else 0)
    return f", TIME '{choice}'", timedelta(seconds=seconds)


@pytest.mark.parametrize("seed", range(count("OVERJOIN_CALCITE_SEEDS", 6)))
def test_tumble_groups_match_the_model(spark, seed: int) -> None:
    """``GROUP BY TUMBLE(ROWTIME, size [, TIME 'align']), k`` with ``TUMBLE_START``/``TUMBLE_END`` of
    the same window (its size written either way) in the select list."""
    rng = random.Random(300 + seed)
    spelling, size = rng.choice(sorted(SIZES.items()))
    same = rng.choice([s for s, v in SIZES.items() if v == size])
    align, offset = alignment(rng)
    rows = generated_rows(rng, 80, 40 * size, snap=lambda t: hop_windows(t, size, size, offset)[0][0])
    table(spark, "calcite_t", rows)
    got = collect(
        spark,
        f"SELECT STREAM TUMBLE_END(ROWTIME, {spelling}{align}) AS e, TUMBLE_START(s.ROWTIME, {same}{align}) AS st, "
        "k, COUNT(*) AS n, SUM(v) AS total, MAX(s.ROWTIME) AS latest, ROWTIME FROM calcite_t AS s "
        f"GROUP BY TUMBLE(ROWTIME, {spelling}{align}), k",
    )
    groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, size, size, offset), lambda r: (r["k"],))
    assert got == [(*g, g[0]) for g in summaries(groups)], (spelling, align)


@pytest.mark.parametrize("seed", range(count("OVERJOIN_CALCITE_SEEDS", 6)))
def test_hop_groups_match_the_model(spark, seed: int) -> None:
    """``GROUP BY HOP(ROWTIME, slide, size [, TIME 'align'])``: a row in every window that holds it
    (a size that is not a multiple of the slide too); ``HOP_START`` inside an aggregate function
    is the group's window start, a constant of the group."""
    rng = random.Random(400 + seed)
    slide, size = rng.choice([(10 * SEC, 30 * SEC), (20 * SEC, 50 * SEC), (60 * SEC, 60 * SEC), (15 * SEC, 90 * SEC)])
    align, offset = alignment(rng)
    hop = f"INTERVAL '{slide // SEC}' SECOND, INTERVAL '{size // SEC}' SECOND{align}"
    rows = generated_rows(rng, 70, 20 * size, snap=lambda t: hop_windows(t, slide, size, offset)[0][0])
    table(spark, "calcite_t", rows)
    got = collect(
        spark,
        f"SELECT STREAM HOP_END(ROWTIME, {hop}) AS e, HOP_START(ROWTIME, {hop}) AS st, k, COUNT(*) AS n, "
        f"SUM(v) AS total, MAX(s.ROWTIME) AS latest, "
        f"MIN(TIMESTAMPDIFF(MICROSECOND, HOP_START(ROWTIME, {hop}), s.ROWTIME)) AS since_start "
        f"FROM calcite_t AS s GROUP BY k, HOP(ROWTIME, {hop})",
    )
    groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, slide, size, offset), lambda r: (r["k"],))
    expected = sorted(
        (*g, min((r["ROWTIME"] - g[1]) // timedelta(microseconds=1) for r in groups[(g[0], g[1], g[2])]))
        for g in summaries(groups)
    )
    assert got == expected, hop
    assert max(len(hop_windows(r["ROWTIME"], slide, size, offset)) for r in rows if r["ROWTIME"]) >= 2 or slide == size


@pytest.mark.parametrize("seed", range(count("OVERJOIN_CALCITE_SEEDS", 4)))
def test_session_groups_match_the_model(spark, seed: int) -> None:
    """``GROUP BY k, SESSION(ROWTIME, gap)``: per key, a session of rows each at most ``gap`` after
    the one before; ``SESSION_START`` its first row's time, ``SESSION_END`` and ``ROWTIME`` its
    last row's plus the gap."""
    rng = random.Random(500 + seed)
    gap = rng.choice([30 * SEC, 90 * SEC])
    rows = generated_rows(rng, 60, 40 * gap)
    # Rows exactly a gap after another, and just over it, to test where sessions split.
    for r in rng.sample(rows[:-1], 8):
        rows.append(
            {**r, "id": len(rows), "ROWTIME": r["ROWTIME"] + gap + rng.choice([0 * SEC, timedelta(microseconds=1)])}
        )
    table(spark, "calcite_t", rows)
    got = collect(
        spark,
        f"SELECT STREAM ROWTIME, SESSION_START(ROWTIME, INTERVAL '{gap // SEC}' SECOND) AS st, k, COUNT(*) AS n, "
        f"SUM(v) AS total, MAX(s.ROWTIME) AS latest, SESSION_END(s.ROWTIME, INTERVAL '{gap // SEC}' SECOND) AS e "
        f"FROM calcite_t AS s GROUP BY k, SESSION(ROWTIME, INTERVAL '{gap // SEC}' SECOND)",
    )
    expected = summaries(session_groups(rows, "ROWTIME", gap, lambda r: (r["k"],)))
    assert got == [(*g, g[0]) for g in expected]


def test_calcite_guides_queries_run_as_printed(spark) -> None:
    """The tumbling and hopping examples of Calcite's streaming guide, over its Orders rows
    (replayed as a table): the groups the guide prints, and where they are not printed, the
    model's."""
    times = ["10:17:00", "10:17:05", "10:18:05", "10:18:07", "11:02:00", "11:04:00", "11:09:30", "11:24:11"]
    products = [30, 10, 20, 30, 10, 10, 40, 10]
    units = [4, 1, 2, 20, 6, 1, 12, 4]
    rows: list[Row] = [
        {"rowtime": datetime.fromisoformat(f"2015-02-15T{t}"), "productId": p, "orderId": i + 5, "units": u}
        for i, (t, p, u) in enumerate(zip(times, products, units))
    ]
    spark.createDataFrame(rows, "rowtime TIMESTAMP, productId INT, orderId INT, units INT").createOrReplaceTempView(
        "Orders"
    )
    printed = [(11, 10, 1, 1), (11, 20, 1, 2), (11, 30, 2, 24), (12, 10, 3, 11), (12, 40, 1, 12)]
    expected = [(datetime(2015, 2, 15, h), p, c, u) for h, p, c, u in printed]
    ceil = collect(
        spark,
        "SELECT STREAM CEIL(rowtime TO HOUR) AS rowtime, productId, COUNT(*) AS c, SUM(units) AS units "
        "FROM Orders GROUP BY CEIL(rowtime TO HOUR), productId",
    )
    tumble = collect(
        spark,
        "SELECT STREAM TUMBLE_END(rowtime, INTERVAL '1' HOUR) AS rowtime, productId, COUNT(*) AS c, "
        "SUM(units) AS units FROM Orders GROUP BY TUMBLE(rowtime, INTERVAL '1' HOUR), productId",
    )
    assert ceil == tumble == expected
    hop = collect(
        spark,
        "SELECT STREAM HOP_END(rowtime, INTERVAL '1' HOUR, INTERVAL '3' HOUR) AS rowtime, COUNT(*) AS c, "
        "SUM(units) AS units FROM Orders GROUP BY HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '3' HOUR)",
    )
    groups: dict[datetime, list[Row]] = {}
    for r in rows:
        for _, end in hop_windows(r["rowtime"], timedelta(hours=1), timedelta(hours=3)):
            groups.setdefault(end, []).append(r)
    assert hop == sorted((end, len(g), sum(r["units"] for r in g)) for end, g in groups.items())
    aligned = collect(
        spark,
        "SELECT STREAM TUMBLE_END(rowtime, INTERVAL '30' MINUTE, TIME '0:12') AS rowtime, productId, COUNT(*) AS c, "
        "SUM(units) AS units FROM Orders GROUP BY TUMBLE(rowtime, INTERVAL '30' MINUTE, TIME '0:12'), productId",
    )
    # The guide's aligned example: summaries at 12 and 42 minutes past each hour.
    assert (datetime(2015, 2, 15, 11), 4, 27) in hop and (datetime(2015, 2, 15, 12), 8, 50) in hop  # as printed
    assert {r[0].minute for r in aligned} <= {12, 42}
    assert sum(r[2] for r in aligned) == len(rows)


# ---- streams ----------------------------------------------------------------------------------


def test_a_row_on_the_hour_waits_for_its_ceil_group_on_a_stream(spark) -> None:
    """With no lateness, a row at exactly 11:00:00 arriving when the watermark is 11:00:00 is not
    late (§8) and belongs to CEIL's group of 11:00, which therefore stays open until the watermark
    is past 11:00:00; replay returns the same groups."""
    h = datetime(2024, 1, 1, 11)
    batches = [
        [(1, h - timedelta(minutes=50)), (2, h - timedelta(milliseconds=500)), (3, h)],
        [(4, h), (5, h + timedelta(minutes=20))],
        [(6, h + timedelta(hours=1)), (7, h + timedelta(hours=1, milliseconds=500))],
    ]
    rows = [[{"id": i, "k": 0, "v": i, "ROWTIME": t} for i, t in b] for b in batches]
    sql = (
        "SELECT STREAM CEIL(rowtime TO HOUR) AS rowtime, COUNT(*) AS c, SUM(v) AS total, "
        "MIN(s.ROWTIME) AS first, MAX(s.ROWTIME) AS last FROM {src} AS s GROUP BY CEIL(rowtime TO HOUR)"
    )
    src = make_stream(spark, "ceil_s", SCHEMA)
    run = run_stream(spark, sql.format(src="STREAM ceil_s"), [{"ceil_s": b} for b in rows], {"ceil_s": src})
    out = [[tuple(r) for r in b] for b in run.batches]
    assert out[0] == []  # 11:00 is the watermark: a row at 11:00:00 may still come
    assert out[1] == [(h, 4, 1 + 2 + 3 + 4, h - timedelta(minutes=50), h)]  # ... and it did
    assert out[2] == [(h + timedelta(hours=1), 2, 5 + 6, h + timedelta(minutes=20), h + timedelta(hours=1))]
    table(spark, "ceil_replay", [r for b in rows for r in b])
    replay = collect(spark, sql.format(src="ceil_replay"))
    assert replay == sorted(
        [
            *out[1],
            *out[2],
            (
                h + timedelta(hours=2),
                1,
                7,
                h + timedelta(hours=1, milliseconds=500),
                h + timedelta(hours=1, milliseconds=500),
            ),
        ]
    )


@pytest.mark.streaming
def test_rows_sorted_within_each_ceil_span_on_a_stream(spark) -> None:
    """Calcite's streaming sort, ``ORDER BY CEIL(rowtime TO SECOND), units DESC``: the rows whose
    CEIL is ``E`` (times in ``(E - 1 s, E]``) leave together once the watermark reaches ``E``, the
    span's last instant, sorted; the whole output is the rows sorted (Python's ``sorted``)."""
    rng = random.Random(21)
    rows: list[Row] = [
        {"id": i, "k": 0, "v": rng.randint(0, 9), "ROWTIME": T0 + rng.randrange(0, 30_000, rng.choice([1, 250])) * MS}
        for i in range(80)
    ]
    assert any(r["ROWTIME"].microsecond == 0 for r in rows)  # rows on a second, the end of their span
    rows.sort(key=lambda r: r["ROWTIME"])
    buckets: dict[int, list[Row]] = {}
    for r in rows:  # out of order within each second, never by more than the lateness
        buckets.setdefault((r["ROWTIME"] - T0) // SEC, []).append(r)
    arrival = [r for b in sorted(buckets) for r in rng.sample(buckets[b], len(buckets[b]))]
    batches = [arrival[i : i + 11] for i in range(0, len(arrival), 11)]
    src = make_stream(spark, "ceil_sorted", SCHEMA)
    sql = (
        "SELECT STREAM CEIL(rowtime TO SECOND) AS span, id, v FROM STREAM ceil_sorted "
        "ORDER BY CEIL(rowtime TO SECOND) ASC, v DESC, id"
    )
    with setting(spark, "spark.overjoin.lateness", "2 seconds"):
        run = run_stream(spark, sql, [{"ceil_sorted": b} for b in batches], {"ceil_sorted": src})
    key = lambda r: (unit_ceil(r["ROWTIME"], "SECOND"), -r["v"], r["id"])  # noqa: E731
    mark = spark_watermark(rows, 2 * SEC)
    want = [(unit_ceil(r["ROWTIME"], "SECOND"), r["id"], r["v"]) for r in sorted(rows, key=key)]
    assert [tuple(r) for r in run.rows] == [w for w in want if w[0] <= mark]
    seen: list[Row] = []
    out: set[int] = set()
    for fed, emitted in zip(batches, run.batches):
        seen += fed
        out |= {r.id for r in emitted}
        assert out == {r["id"] for r in seen if unit_ceil(r["ROWTIME"], "SECOND") <= spark_watermark(seen, 2 * SEC)}


@pytest.mark.streaming
def test_sessions_sorted_in_an_outer_query_on_a_stream(spark) -> None:
    """A block grouped by SESSION does not sort its groups yet (OJ128 says so and how); an outer
    query sorts them: each micro-batch's sessions in ROWTIME order, as the model makes them."""
    with pytest.raises(ParseException, match="OJ128"):
        spark.sql("SELECT STREAM ROWTIME, k FROM t GROUP BY k, SESSION(ROWTIME, INTERVAL '10' SECOND) ORDER BY ROWTIME")
    rng = random.Random(8)
    rows = sorted(generated_rows(rng, 60, timedelta(minutes=3), nulls=False), key=lambda r: r["ROWTIME"])
    batches = [rows[i : i + 9] for i in range(0, len(rows), 9)]
    src = make_stream(spark, "calcite_sessions", SCHEMA)
    sql = (
        "SELECT STREAM * FROM (SELECT STREAM ROWTIME, k, COUNT(*) AS n FROM STREAM calcite_sessions "
        "GROUP BY k, SESSION(ROWTIME, INTERVAL '10' SECOND)) AS x ORDER BY ROWTIME, k"
    )
    run = run_stream(spark, sql, [{"calcite_sessions": b} for b in batches], {"calcite_sessions": src})
    groups = session_groups(rows, "ROWTIME", 10 * SEC, lambda r: (r["k"],))
    expected = sorted((end, k, len(g)) for (end, _, k), g in groups.items())
    assert [tuple(r) for r in run.rows] == [g for g in expected if g[0] <= spark_watermark(rows, timedelta(0))]
    assert len(run.rows) > len(expected) // 2


OUTER = {
    "tumble": ("TUMBLE_START(ROWTIME, INTERVAL '20' SECOND)", "TUMBLE(ROWTIME, INTERVAL '20' SECOND)"),
    "session": ("SESSION_START(s.ROWTIME, INTERVAL '5' SECOND)", "SESSION(ROWTIME, INTERVAL '5' SECOND)"),
}


@pytest.mark.streaming
@pytest.mark.parametrize("kind", sorted(OUTER))
def test_an_outer_query_filters_by_the_window_its_subquery_selects(spark, kind: str) -> None:
    """What OJ128 says to write for a window's start in WHERE or HAVING: select it in a subquery
    and filter by its name outside. The subquery need not select ROWTIME (a SELECT STREAM subquery
    has one, §10: the group's end). Over a stream the outer query returns the model's groups whose
    end the watermark has passed; over a table, all of them."""
    with pytest.raises(ParseException, match="OJ128"):
        spark.sql(
            f"SELECT STREAM k FROM calcite_outer AS s GROUP BY k, {OUTER[kind][1]} HAVING {OUTER[kind][0]} > ROWTIME"
        )
    rng = random.Random(f"outer-{kind}")
    rows = sorted(generated_rows(rng, 70, timedelta(minutes=3), nulls=False), key=lambda r: r["ROWTIME"])
    batches = [rows[i : i + 10] for i in range(0, len(rows), 10)]
    start, group = OUTER[kind]
    sql = (
        f"SELECT STREAM ROWTIME, st, k, n FROM (SELECT STREAM {start} AS st, k, COUNT(*) AS n FROM {{src}} AS s "
        f"GROUP BY k, {group}) AS w WHERE n > 1 AND st >= TIMESTAMP '{T0 + timedelta(minutes=1)}'"
    )
    src = make_stream(spark, "calcite_outer", SCHEMA)
    run = run_stream(
        spark, sql.format(src="STREAM calcite_outer"), [{"calcite_outer": b} for b in batches], {"calcite_outer": src}
    )
    key: Callable[[Row], tuple[Any, ...]] = lambda r: (r["k"],)  # noqa: E731
    if kind == "tumble":
        groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, 20 * SEC, 20 * SEC), key)
    else:
        groups = session_groups(rows, "ROWTIME", 5 * SEC, key)
    expected = sorted(
        (end, st, k, len(g)) for (end, st, k), g in groups.items() if len(g) > 1 and st >= T0 + timedelta(minutes=1)
    )
    mark = spark_watermark(rows, timedelta(0))
    assert sorted(tuple(r) for r in run.rows) == [g for g in expected if g[0] <= mark]
    assert len(run.rows) > len(expected) // 2
    table(spark, "calcite_outer_t", rows)
    assert collect(spark, sql.format(src="calcite_outer_t")) == expected


KINDS = {
    "ceil": (
        "CEIL(ROWTIME TO MINUTE) AS st, CEIL(ROWTIME TO MINUTE) AS e",
        "CEIL(ROWTIME TO MINUTE)",
    ),
    "tumble": (
        "TUMBLE_START(ROWTIME, INTERVAL '30' SECOND, TIME '0:00:07') AS st, "
        "TUMBLE_END(ROWTIME, INTERVAL '30' SECOND, TIME '0:00:07') AS e",
        "TUMBLE(ROWTIME, INTERVAL '30' SECOND, TIME '0:00:07')",
    ),
    "hop": (
        "HOP_START(s.ROWTIME, INTERVAL '10' SECOND, INTERVAL '25' SECOND) AS st, "
        "HOP_END(s.ROWTIME, INTERVAL '10' SECOND, INTERVAL '25' SECOND) AS e",
        "HOP(s.ROWTIME, INTERVAL '10' SECOND, INTERVAL '25' SECOND)",
    ),
    "session": (
        "SESSION_START(ROWTIME, INTERVAL '8' SECOND) AS st, SESSION_END(ROWTIME, INTERVAL '8' SECOND) AS e",
        "SESSION(ROWTIME, INTERVAL '8' SECOND)",
    ),
}


def kind_model(kind: str, rows: list[Row]) -> list[tuple]:
    """``(ROWTIME, st, e, k, n, total)`` of every group the model makes of ``rows``."""
    key: Callable[[Row], tuple[Any, ...]] = lambda r: (r["k"],)  # noqa: E731
    if kind == "ceil":
        groups = tumbling_groups(rows, "ROWTIME", lambda t: (unit_ceil(t, "MINUTE"),) * 2, key)
    elif kind == "tumble":
        groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, 30 * SEC, 30 * SEC, 7 * SEC), key)
    elif kind == "hop":
        groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, 10 * SEC, 25 * SEC), key)
    else:
        groups = session_groups(rows, "ROWTIME", 8 * SEC, key)
    return sorted((end, start, end, k, len(g), sum(r["v"] for r in g)) for (end, start, k), g in groups.items())


def snap_for(kind: str) -> Callable[[datetime], datetime]:
    """A boundary of each kind's windows: where a row is most likely to be judged wrongly."""
    if kind == "ceil":
        return lambda t: unit_floor(t, "MINUTE")[0]
    if kind == "tumble":
        return lambda t: hop_windows(t, 30 * SEC, 30 * SEC, 7 * SEC)[0][0]
    return lambda t: hop_windows(t, 10 * SEC, 10 * SEC)[0][0]


@pytest.mark.streaming
@pytest.mark.parametrize("seed", range(count("OVERJOIN_CALCITE_STREAM_SEEDS", 2)))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_stream_emits_each_group_once_when_the_watermark_passes_its_end(spark, kind: str, seed: int) -> None:
    """Rows arrive out of order within the lateness; after each micro-batch exactly the model's
    groups whose end the watermark has reached are out, each once, and they are replay's."""
    rng = random.Random(f"{kind}-{seed}")
    select, group = KINDS[kind]
    lateness = 20 * SEC
    rows = sorted(
        generated_rows(rng, 110, timedelta(minutes=4), snap=snap_for(kind), nulls=False), key=lambda r: r["ROWTIME"]
    )
    buckets: dict[int, list[Row]] = {}
    for r in rows:  # out of order, but never by more than the lateness
        buckets.setdefault(int((r["ROWTIME"] - T0) / (15 * SEC)), []).append(r)
    arrival = [r for b in sorted(buckets) for r in rng.sample(buckets[b], len(buckets[b]))]
    batches = [arrival[i : i + 20] for i in range(0, len(arrival), 20)]
    sql = f"SELECT STREAM ROWTIME, {select}, k, COUNT(*) AS n, SUM(v) AS total FROM {{src}} AS s GROUP BY {group}, k"
    src = make_stream(spark, "calcite_s", SCHEMA)
    with setting(spark, "spark.overjoin.lateness", "20 seconds"):
        run = run_stream(
            spark, sql.format(src="STREAM calcite_s"), [{"calcite_s": b} for b in batches], {"calcite_s": src}
        )
    expected = kind_model(kind, rows)
    seen: list[Row] = []
    emitted: list[tuple] = []
    for fed, out in zip(batches, run.batches):
        seen += fed
        emitted += [tuple(r) for r in out]
        mark = spark_watermark(seen, lateness)
        assert sorted(emitted) == [g for g in expected if g[0] <= mark], (kind, seed, mark)
    assert len(set(emitted)) == len(emitted)  # each group once
    assert len(emitted) >= len(expected) // 2
    table(spark, "calcite_replay", rows)
    assert collect(spark, sql.format(src="calcite_replay")) == expected


RESTARTED = {
    "hop": (
        "HOP_END(ROWTIME, INTERVAL '10' SECOND, INTERVAL '30' SECOND)",
        "HOP(ROWTIME, INTERVAL '10' SECOND, INTERVAL '30' SECOND)",
    ),
    "session": ("SESSION_END(ROWTIME, INTERVAL '15' SECOND)", "SESSION(ROWTIME, INTERVAL '15' SECOND)"),
}


@pytest.mark.streaming
@pytest.mark.parametrize("kind", sorted(RESTARTED))
def test_a_group_window_resumes_from_its_checkpoint(spark, kind: str) -> None:
    """Stopped and started again from its checkpoint, a hopping or session aggregation emits the
    same groups as when it runs through: the open windows (sessions open across the stop among
    them) are Spark's own aggregation state, of ``window()`` and ``session_window()``."""
    rng = random.Random(77)
    rows = sorted(generated_rows(rng, 90, timedelta(minutes=3), nulls=False), key=lambda r: r["ROWTIME"])
    batches = [rows[i : i + 15] for i in range(0, len(rows), 15)]
    src = make_stream(spark, f"calcite_restart_{kind}", SCHEMA)
    end, group = RESTARTED[kind]
    sql = (
        f"SELECT STREAM {end} AS e, k, COUNT(*) AS n, SUM(v) AS total FROM STREAM calcite_restart_{kind} "
        f"GROUP BY k, {group}"
    )
    got = sorted(tuple(r) for r in run_with_restart(spark, sql, src, batches, stop_after=3))
    key: Callable[[Row], tuple[Any, ...]] = lambda r: (r["k"],)  # noqa: E731
    if kind == "hop":
        groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, 10 * SEC, 30 * SEC), key)
    else:
        groups = session_groups(rows, "ROWTIME", 15 * SEC, key)
        stop = batches[2][-1]["ROWTIME"]
        # A session that was open when the query stopped and took rows after it started again.
        assert any(g[0]["ROWTIME"] <= stop < g[-1]["ROWTIME"] for g in groups.values())
    mark = spark_watermark(rows, timedelta(0))
    expected = sorted((e, k, len(g), sum(r["v"] for r in g)) for (e, _, k), g in groups.items() if e <= mark)
    assert got == expected
    assert len(got) > len(groups) // 2


# ---- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "error", "fragment", "at"),
    [
        ("SELECT STREAM CEIL(ROWTIME TO FORTNIGHT) FROM t", ParseException, "a unit (YEAR", "FORTNIGHT"),
        ("SELECT STREAM CEILING(TO HOUR) FROM t", ParseException, "the time to round up before TO", "TO HOUR"),
        (
            "SELECT STREAM TUMBLE_END(ROWTIME, INTERVAL '1' HOUR) AS e, COUNT(*) FROM t GROUP BY k",
            ParseException,
            "its query block has no GROUP BY TUMBLE(...)",
            "TUMBLE_END(",
        ),
        (
            "SELECT STREAM HOP_END(ROWTIME, INTERVAL '1' MINUTE, INTERVAL '2' HOUR) AS e, COUNT(*) FROM t "
            "GROUP BY HOP(ROWTIME, INTERVAL '1' MINUTE, INTERVAL '1' HOUR)",
            ParseException,
            "its window is not that of GROUP BY HOP(ROWTIME, INTERVAL '1' MINUTE, INTERVAL '1' HOUR)",
            "INTERVAL '2' HOUR)",
        ),
        (
            "SELECT STREAM TUMBLE_END(ROWTIME, INTERVAL '1' HOUR, TIME '0:30') AS e FROM t "
            "GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR)",
            ParseException,
            "Write the arguments of the GROUP BY's TUMBLE: TUMBLE_END(ROWTIME, INTERVAL '1' HOUR)",
            "TIME '0:30'",
        ),
        (
            "SELECT STREAM COUNT(*) FROM t GROUP BY HOP(ROWTIME, INTERVAL '3' HOUR, INTERVAL '1' HOUR)",
            ParseException,
            "HOP takes the slide first, then the size",
            "INTERVAL '3' HOUR,",
        ),
        (
            "SELECT STREAM COUNT(*) FROM t GROUP BY TUMBLE(ROWTIME, INTERVAL '1' MONTH)",
            ParseException,
            "OJ101",
            "MONTH",
        ),
        (
            "SELECT STREAM COUNT(*) FROM t GROUP BY SESSION(ROWTIME, INTERVAL '0' SECOND)",
            ParseException,
            "the gap of SESSION must be longer than zero",
            "INTERVAL '0'",
        ),
        (
            "SELECT STREAM COUNT(*) FROM t GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR, TIME '25:00')",
            ParseException,
            "a time of day such as '0:12'",
            "'25:00'",
        ),
        ("SELECT STREAM COUNT(*) FROM t GROUP BY TUMBLE(ROWTIME)", ParseException, "TUMBLE(time, size", ")"),
        (
            "SELECT STREAM TUMBLE(ROWTIME, INTERVAL '1' HOUR) AS w FROM t GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR)",
            ParseException,
            "it can only be an item of GROUP BY",
            "TUMBLE(ROWTIME, INTERVAL '1' HOUR) AS",
        ),
        (
            "SELECT STREAM k FROM t GROUP BY k, TUMBLE(ROWTIME, INTERVAL '1' HOUR) "
            "HAVING TUMBLE_END(ROWTIME, INTERVAL '1' HOUR) > TIMESTAMP '2024-01-01 00:00:00'",
            ParseException,
            "which only the select list can read",
            "TUMBLE_END(",
        ),
        (
            "SELECT STREAM TUMBLE_END(v_time, INTERVAL '1' HOUR) AS e FROM (SELECT *, ROWTIME AS v_time FROM t) AS s "
            "GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR)",
            AnalysisException,
            "its time v_time is not that of GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR)",
            "TUMBLE_END(",
        ),
        (
            "SELECT STREAM COUNT(*) FROM t GROUP BY TUMBLE(ROWTIME, INTERVAL '1' HOUR), FLOOR(ROWTIME TO MINUTE)",
            AnalysisException,
            "TWO_TUMBLING_WINDOWS",
            None,
        ),
    ],
)
def test_bad_calcite_windows_say_what_and_where(spark, sql: str, error: type, fragment: str, at: str | None) -> None:
    table(spark, "t", generated_rows(random.Random(1), 3, timedelta(minutes=1)))
    with pytest.raises(error) as info:
        spark.sql(sql).collect()
    message = str(info.value)
    assert fragment in message
    if at is not None:
        if isinstance(info.value, ParseException):
            # The caret line points at the offending text of the user's statement.
            assert sql[caret_column(message) :].startswith(at), message
        else:
            position = int(message.rsplit("pos ", 1)[1].split()[0])
            assert sql[position:].startswith(at), message


@pytest.mark.streaming
def test_a_window_of_another_time_over_a_stream_is_refused(spark) -> None:
    """Over a stream the windows must be of its rowtime: no watermark would close windows of
    another time. Over a table they are that time's windows."""
    schema = "id INT, k INT, v INT, ROWTIME TIMESTAMP, other TIMESTAMP"
    make_stream(spark, "calcite_other", schema)
    sql = (
        "SELECT STREAM TUMBLE_END(s.other, INTERVAL '1' MINUTE) AS e, COUNT(*) AS n FROM {src} AS s "
        "GROUP BY TUMBLE(s.other, INTERVAL '1' MINUTE)"
    )
    with pytest.raises(AnalysisException) as info:
        spark.sql(sql.format(src="STREAM calcite_other"))
    assert "its time s.other is not the rowtime of the block's stream input" in str(info.value)
    rows: list[Row] = [
        {"id": i, "k": 0, "v": 1, "ROWTIME": T0, "other": T0 + timedelta(seconds=37 * i)} for i in range(10)
    ]
    spark.createDataFrame(rows, schema).createOrReplaceTempView("calcite_other_t")
    counts: dict[datetime, int] = {}
    for r in rows:
        end = hop_windows(r["other"], 60 * SEC, 60 * SEC)[0][1]
        counts[end] = counts.get(end, 0) + 1
    assert collect(spark, sql.format(src="calcite_other_t")) == sorted(counts.items())


# ---- plain Spark SQL --------------------------------------------------------------------------


def test_spark_ceil_and_its_window_functions_are_unchanged(spark) -> None:
    """``ceil(x)``, ``window()`` and ``session_window()`` in a plain query are Spark's: the same
    groups as the model's hopping and session windows, with Spark's column names."""
    rng = random.Random(5)
    rows = generated_rows(rng, 50, timedelta(minutes=5))
    table(spark, "plain_t", rows)
    got = spark.sql("SELECT id, ceil(v / 4), CEILING(v, -1) FROM plain_t").collect()
    assert got[0].asDict().keys() == {"id", "CEIL((v / 4))", "ceiling(v, -1)"}
    for r in got:
        v = next(x["v"] for x in rows if x["id"] == r["id"])
        assert r[1] == -(-v // 4) and r[2] == -(-v // 10) * 10
    windows = collect(
        spark,
        "SELECT window.end, window.start, k, COUNT(*), SUM(v), MAX(ROWTIME) FROM plain_t "
        "GROUP BY window(ROWTIME, '30 seconds', '10 seconds'), k",
    )
    groups = hopping_groups(rows, "ROWTIME", lambda t: hop_windows(t, 10 * SEC, 30 * SEC), lambda r: (r["k"],))
    assert windows == summaries(groups)
    sessions = collect(
        spark,
        "SELECT session_window.end, session_window.start, k, COUNT(*), SUM(v), MAX(ROWTIME) FROM plain_t "
        "GROUP BY k, session_window(ROWTIME, '20 seconds')",
    )
    assert sessions == summaries(session_groups(rows, "ROWTIME", 20 * SEC, lambda r: (r["k"],)))
