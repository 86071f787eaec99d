"""Tumbling windows: ``GROUP BY ... STEP(ROWTIME BY ...)`` and ``FLOOR(ROWTIME TO unit)``
(docs/semantics.md §11), against the reference model, over tables (replay) and as streams.

A group's ``ROWTIME`` is its window's end; the ``STEP``/``FLOOR`` expression in the select list is
the window's start; ``ROWTIME`` inside an aggregate function is the rows' own. A stream emits a
group once the watermark passes its end, so it returns replay's groups except those whose window
the watermark never passed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.reference_model import Row, step_floor, steps_since, tumbling_groups, unit_floor
from tests.spark.errors import caret_column
from tests.spark.streams import make_stream, run_stream, setting

T0 = datetime(2024, 3, 30, 22, 0, 0)  # a month end and a week end nearby
SEC = timedelta(seconds=1)

STEPS = {
    "INTERVAL '10' SECOND": timedelta(seconds=10),
    "INTERVAL '1' MINUTE": timedelta(minutes=1),
    "INTERVAL '90' SECOND": timedelta(seconds=90),
    "INTERVAL '1:30' MINUTE TO SECOND": timedelta(seconds=90),
    "INTERVAL '2' HOUR": timedelta(hours=2),
    "INTERVAL '1' DAY": timedelta(days=1),
}
UNITS = ["SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]


def generated_rows(rng: random.Random, n: int, spread: timedelta, nulls: bool = True) -> list[Row]:
    rows = []
    for i in range(n):
        t = T0 + timedelta(microseconds=rng.randrange(int(spread / timedelta(microseconds=1))))
        rows.append({"id": i, "k": rng.randint(0, 2), "v": rng.randint(-5, 9), "ROWTIME": t})
    if nulls:
        rows.append({"id": n, "k": 0, "v": 1, "ROWTIME": None})
    return rows


def table(spark: Any, name: str, rows: list[Row]) -> None:
    spark.createDataFrame(rows, "id INT, k INT, v INT, ROWTIME TIMESTAMP").createOrReplaceTempView(name)


def model_rows(rows: list[Row], window: Callable[[datetime], tuple[datetime, datetime]]) -> list[tuple]:
    """``SELECT ROWTIME, <floor> AS ws, k, COUNT(*), SUM(v), MAX(ROWTIME) ... GROUP BY k, <floor>``."""
    groups = tumbling_groups(rows, "ROWTIME", window, lambda r: (r["k"],))
    return sorted(
        (end, start, k, len(g), sum(r["v"] for r in g), max(r["ROWTIME"] for r in g))
        for (end, start, k), g in groups.items()
    )


def emitted_as_the_watermark_passes(
    batches: list[list[Row]], outputs: list[list[Any]], expected: list[tuple], lateness: timedelta
) -> list[tuple]:
    """Checks that after each input batch exactly the expected groups whose end the watermark (the
    latest rowtime of every row fed so far, less the lateness) has reached are out; returns them."""
    seen: list[Row] = []
    emitted: list[tuple] = []
    for fed, out in zip(batches, outputs):
        seen += fed
        emitted += [tuple(r) for r in out]
        mark = max(r["ROWTIME"] for r in seen) - lateness
        assert sorted(emitted) == [g for g in expected if g[0] <= mark], fed[-1]["id"]
    return sorted(emitted)


def query(source: str, floor: str) -> str:
    return (
        f"SELECT STREAM ROWTIME, {floor} AS ws, k, COUNT(*) AS n, SUM(v) AS total, MAX(s.ROWTIME) AS latest "
        f"FROM {source} AS s GROUP BY k, {floor}"
    )


@pytest.mark.parametrize("seed", range(6))
def test_step_groups_over_a_table_match_the_model(spark, seed: int) -> None:
    rng = random.Random(seed)
    spelling, size = rng.choice(sorted(STEPS.items()))
    rows = generated_rows(rng, 60, rng.choice([timedelta(minutes=5), timedelta(hours=9), timedelta(days=3)]))
    table(spark, "tumble_t", rows)
    got = sorted(tuple(r) for r in spark.sql(query("tumble_t", f"STEP(s.ROWTIME BY {spelling})")).collect())
    expected = model_rows(rows, lambda t: (step_floor(t, size), step_floor(t, size) + size))
    assert got == expected, spelling


@pytest.mark.parametrize("unit", UNITS)
def test_floor_groups_over_a_table_match_the_model(spark, unit: str) -> None:
    rng = random.Random(unit)
    rows = generated_rows(rng, 80, {"SECOND": 20 * SEC, "MINUTE": timedelta(minutes=20)}.get(unit, timedelta(days=400)))
    table(spark, "tumble_t", rows)
    got = sorted(tuple(r) for r in spark.sql(query("tumble_t", f"FLOOR(ROWTIME TO {unit})")).collect())
    assert got == model_rows(rows, lambda t: unit_floor(t, unit))


UNIT = {"SECOND": SEC, "MINUTE": 60 * SEC, "HOUR": 3600 * SEC, "DAY": 86400 * SEC}


def template_floor(origin: str, unit: str, n: int | None, alias: str = "s") -> str:
    """KDA's template tumbling window, as its templates write it."""
    step = f" / {n}" if n is not None else ""
    return f"FLOOR(({alias}.ROWTIME - TIMESTAMP '{origin}') {unit}{step} TO {unit})"


def template_model(rows: list[Row], origin: datetime, unit: str, n: int) -> list[tuple]:
    """:func:`model_rows` of the template window: ``ws`` is the number of steps as an interval."""
    size = n * UNIT[unit]
    expected = model_rows(rows, lambda t: (origin + steps_since(t, origin, size) * size,) * 2)
    return sorted(
        (start + size, steps_since(start, origin, size) * UNIT[unit], k, count, total, latest)
        for _, start, k, count, total, latest in expected
    )


@pytest.mark.parametrize("seed", range(4))
def test_kda_template_floor_groups_match_the_model(spark, seed: int) -> None:
    """``GROUP BY k, FLOOR((s.ROWTIME - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO SECOND)``:
    windows of n units aligned at the literal (docs/semantics.md §11); the same call in the select
    list is the number of steps since the origin, an interval of the unit."""
    rng = random.Random(200 + seed)
    unit = rng.choice(["SECOND", "MINUTE", "HOUR", "DAY"])
    n = rng.choice([1, 3, 10, 60])
    origin = rng.choice([datetime(1970, 1, 1), T0 - 7 * SEC - timedelta(milliseconds=250), T0 + 3 * UNIT[unit]])
    written = origin.strftime("%Y-%m-%d %H:%M:%S") + (
        f".{origin.microsecond // 1000:03d}" if origin.microsecond else ""
    )
    rows = generated_rows(rng, 70, 40 * n * UNIT[unit])
    table(spark, "tumble_t", rows)
    floor = template_floor(written, rng.choice([unit, unit + "S"]), None if n == 1 and rng.random() < 0.5 else n)
    got = sorted(tuple(r) for r in spark.sql(query("tumble_t", floor)).collect())
    assert got == template_model(rows, origin, unit, n), floor
    if origin == datetime(1970, 1, 1) and unit in ("SECOND", "MINUTE"):
        # Aligned at the epoch, the windows are STEP's.
        step = f"STEP(s.ROWTIME BY INTERVAL '{n}' {unit})"
        same = sorted(tuple(r)[:1] + tuple(r)[2:] for r in spark.sql(query("tumble_t", step)).collect())
        assert same == [g[:1] + g[2:] for g in got]


def test_scalar_step_and_floor_outside_group_by(spark) -> None:
    rows = generated_rows(random.Random(7), 40, timedelta(days=40), nulls=False)
    rows.append({"id": 99, "k": 0, "v": 0, "ROWTIME": datetime(1969, 12, 31, 23, 59, 59, 500000)})
    table(spark, "tumble_t", rows)
    got = spark.sql(
        "SELECT STREAM id, STEP(ROWTIME BY INTERVAL '15' MINUTE) AS q, FLOOR(s.ROWTIME TO MONTH) AS m, "
        "STEP(v BY 4) AS v4, FLOOR(v) AS plain FROM tumble_t AS s"
    ).collect()
    by_id = {r["id"]: r for r in rows}
    for r in got:
        t = by_id[r["id"]]["ROWTIME"]
        assert r["q"] == step_floor(t, timedelta(minutes=15))
        assert r["m"] == unit_floor(t, "MONTH")[0]
        assert r["v4"] == by_id[r["id"]]["v"] - by_id[r["id"]]["v"] % 4  # floor to a multiple of 4
        assert r["plain"] == by_id[r["id"]]["v"]  # FLOOR without TO is Spark's own
    assert len(got) == len(rows)


def test_plain_select_groups_too_and_having_works(spark) -> None:
    rows = generated_rows(random.Random(3), 50, timedelta(minutes=4), nulls=False)
    table(spark, "tumble_t", rows)
    got = sorted(
        tuple(r)
        for r in spark.sql(
            "SELECT k, COUNT(*) AS n FROM tumble_t GROUP BY k, STEP(tumble_t.ROWTIME BY INTERVAL '1' MINUTE) "
            "HAVING COUNT(*) > 2"
        ).collect()
    )
    groups = tumbling_groups(
        rows, "ROWTIME", lambda t: (step_floor(t, 60 * SEC), step_floor(t, 60 * SEC) + 60 * SEC), lambda r: (r["k"],)
    )
    assert got == sorted((k, len(g)) for (_, _, k), g in groups.items() if len(g) > 2)


@pytest.mark.streaming
@pytest.mark.parametrize("seed", range(3))
def test_stream_emits_each_closed_window_once_as_replay_does(spark, seed: int) -> None:
    """Rows arrive out of order within the lateness; a group leaves once the watermark passes its end."""
    rng = random.Random(100 + seed)
    spelling, size = rng.choice([("INTERVAL '10' SECOND", 10 * SEC), ("INTERVAL '1' MINUTE", 60 * SEC)])
    floor = rng.choice([f"STEP(s.ROWTIME BY {spelling})", f"STEP(ROWTIME BY {spelling})"])
    if size == 60 * SEC and rng.random() < 0.5:
        floor = "FLOOR(ROWTIME TO MINUTE)"
    template = seed == 2  # KDA's template window: aligned at an origin of its own
    if template:
        floor = template_floor("2024-03-30 21:00:04", "SECOND", int(size / SEC))
    lateness = 20 * SEC
    rows = sorted(generated_rows(rng, 120, timedelta(minutes=6), nulls=False), key=lambda r: r["ROWTIME"])
    # Out of order, but never by more than the lateness: shuffle within 15-second buckets.
    buckets: dict[int, list[Row]] = {}
    for r in rows:
        buckets.setdefault(int((r["ROWTIME"] - T0) / (15 * SEC)), []).append(r)
    arrival = [r for b in sorted(buckets) for r in rng.sample(buckets[b], len(buckets[b]))]
    batches = [arrival[i : i + 17] for i in range(0, len(arrival), 17)]
    src = make_stream(spark, "tumble_s", "id INT, k INT, v INT, ROWTIME TIMESTAMP")
    with setting(spark, "spark.overjoin.lateness", "20 seconds"):
        run = run_stream(spark, query("STREAM tumble_s", floor), [{"tumble_s": b} for b in batches], {"tumble_s": src})
    got = sorted(tuple(r) for r in run.rows)
    window = (
        (lambda t: unit_floor(t, "MINUTE"))
        if floor.startswith("FLOOR")
        else (lambda t: (step_floor(t, size), step_floor(t, size) + size))
    )
    expected = (
        template_model(rows, datetime(2024, 3, 30, 21, 0, 4), "SECOND", int(size / SEC))
        if template
        else model_rows(rows, window)
    )
    watermark = max(r["ROWTIME"] for r in rows) - lateness
    assert got == [g for g in expected if g[0] <= watermark], floor
    assert len(got) > len(expected) // 2  # only the windows within the lateness of the end stay open
    assert len(set(got)) == len(got)  # each group once
    # Each group leaves as soon as the watermark (the latest rowtime so far less the lateness)
    # passes its end: after each input batch, exactly those groups are out.
    emitted_as_the_watermark_passes(batches, run.batches, expected, lateness)


@pytest.mark.streaming
def test_rows_a_where_leaves_out_still_move_the_stream_time(spark) -> None:
    """A stream's time is its rows', whether or not the query's WHERE keeps them (docs/semantics.md
    §8): with ``WHERE v > 4`` a window closes as soon as any later row, kept or not, takes the
    watermark past its end. The model's watermark after each batch is the latest rowtime of every
    row fed so far, less the lateness; its groups are those of the kept rows. Later batches hold
    only rows the WHERE leaves out, so every window closes on them alone."""
    rng = random.Random(4242)
    lateness = 5 * SEC
    rows = sorted(generated_rows(rng, 90, timedelta(minutes=3), nulls=False), key=lambda r: r["ROWTIME"])
    tail = [{"id": 1000 + i, "k": 0, "v": -1, "ROWTIME": rows[-1]["ROWTIME"] + i * 40 * SEC} for i in range(1, 6)]
    batches = [rows[i : i + 15] for i in range(0, len(rows), 15)] + [[r] for r in tail]
    floor = "STEP(s.ROWTIME BY INTERVAL '10' SECOND)"
    sql = query("STREAM where_s", floor).replace("GROUP BY", "WHERE v > 4 GROUP BY")
    src = make_stream(spark, "where_s", "id INT, k INT, v INT, ROWTIME TIMESTAMP")
    with setting(spark, "spark.overjoin.lateness", "5 seconds"):
        run = run_stream(spark, sql, [{"where_s": b} for b in batches], {"where_s": src})
    size = 10 * SEC
    expected = model_rows([r for r in rows if r["v"] > 4], lambda t: (step_floor(t, size), step_floor(t, size) + size))
    emitted = emitted_as_the_watermark_passes(batches, run.batches, expected, lateness)
    assert emitted == expected  # the rows left out closed every window


@pytest.mark.streaming
@pytest.mark.parametrize("how", ["JOIN", "LEFT JOIN"])
def test_stream_join_then_tumbling_aggregation(spark, how: str) -> None:
    """KDA apps aggregate joined streams: the join's ROWTIME feeds the window (a LEFT join's
    unmatched rows too, with their own rowtime, docs/semantics.md §4)."""
    rng = random.Random(5)
    a_rows: list[Row] = [
        {"id": i, "k": rng.randint(0, 2), "v": rng.randint(1, 9), "ROWTIME": T0 + i * 7 * SEC} for i in range(40)
    ]
    b_rows: list[Row] = [
        {"id": i, "k": rng.randint(0, 2), "v": rng.randint(1, 9), "ROWTIME": T0 + i * 5 * SEC + 2 * SEC}
        for i in range(56)
    ]
    a = make_stream(spark, "tumble_a", "id INT, k INT, v INT, ROWTIME TIMESTAMP")
    b = make_stream(spark, "tumble_b", "id INT, k INT, v INT, ROWTIME TIMESTAMP")
    sql = (
        f"SELECT STREAM ROWTIME, a.k, COUNT(*) AS n, SUM(a.v * b.v) AS x FROM STREAM tumble_a AS a "
        f"{how} STREAM tumble_b OVER (RANGE INTERVAL '20' SECOND PRECEDING) AS b ON a.k = b.k "
        "GROUP BY a.k, FLOOR(ROWTIME TO MINUTE)"
    )
    batches = [
        {"tumble_a": a_rows[i : i + 8], "tumble_b": b_rows[j : j + 11]}
        for i, j in zip(range(0, 40, 8), range(0, 56, 11))
    ]
    run = run_stream(spark, sql, batches, {"tumble_a": a, "tumble_b": b})
    # The model: pairs of the join (b within 20 s before a), ROWTIME = the later rowtime.
    pairs = [
        {"ROWTIME": max(x["ROWTIME"], y["ROWTIME"]), "k": x["k"], "v": x["v"] * y["v"]}
        for x in a_rows
        for y in b_rows
        if x["k"] == y["k"] and x["ROWTIME"] - 20 * SEC <= y["ROWTIME"] <= x["ROWTIME"]
    ]
    if how == "LEFT JOIN":
        matched = len(pairs)
        pairs += [
            {"ROWTIME": x["ROWTIME"], "k": x["k"], "v": None}
            for x in a_rows
            if not any(x["k"] == y["k"] and x["ROWTIME"] - 20 * SEC <= y["ROWTIME"] <= x["ROWTIME"] for y in b_rows)
        ]
        assert len(pairs) > matched  # the data has unmatched rows
    groups = tumbling_groups(pairs, "ROWTIME", lambda t: unit_floor(t, "MINUTE"), lambda r: (r["k"],))
    expected = sorted(
        (end, k, len(g), sum(r["v"] for r in g if r["v"] is not None) if any(r["v"] is not None for r in g) else None)
        for (end, _, k), g in groups.items()
    )
    watermark = min(a_rows[-1]["ROWTIME"], b_rows[-1]["ROWTIME"])
    got = sorted(tuple(r) for r in run.rows)
    assert got == [g for g in expected if g[0] <= watermark]
    assert len(got) >= 4


@pytest.mark.parametrize(
    ("sql", "error", "fragment", "at"),
    [
        (
            "SELECT k FROM t GROUP BY k, STEP(t.ROWTIME BY INTERVAL '1' MONTH)",
            ParseException,
            "FLOOR(ts TO MONTH)",
            "MONTH)",
        ),
        ("SELECT k FROM t GROUP BY k, FLOOR(t.ROWTIME TO FORTNIGHT)", ParseException, "a unit (YEAR", "FORTNIGHT"),
        (
            "SELECT k FROM t GROUP BY k, STEP(t.ROWTIME BY INTERVAL '0' SECOND)",
            ParseException,
            "longer than zero",
            "INTERVAL '0'",
        ),
        (
            "SELECT k FROM t GROUP BY k, STEP(t.ROWTIME BY '1 minute')",
            ParseException,
            "an INTERVAL literal such as INTERVAL '1' MINUTE after BY, not a string: write INTERVAL '1 minute'",
            "'1 minute'",
        ),
        ("SELECT k FROM t GROUP BY k, STEP(BY INTERVAL '1' SECOND)", ParseException, "the time to floor", "BY"),
        (
            "SELECT k FROM t GROUP BY k, FLOOR((t.ROWTIME - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO MINUTE)",
            ParseException,
            "the difference is in SECONDS",
            "MINUTE)",
        ),
        (
            "SELECT k FROM t GROUP BY k, FLOOR((t.ROWTIME - TIMESTAMP '1970-01-01 00:00:00') MINUTE / 0 TO MINUTE)",
            ParseException,
            "a whole number of MINUTES above zero",
            "0 TO",
        ),
        (
            "SELECT k FROM t GROUP BY k, FLOOR((t.ROWTIME - DATE '1970-01-01') SECOND / 10 TO SECOND)",
            ParseException,
            "the difference of the time and a TIMESTAMP literal",
            "DATE",
        ),
        (
            "SELECT k FROM t GROUP BY k, FLOOR(ROWTIME TO HOUR), STEP(ROWTIME BY INTERVAL '1' MINUTE)",
            AnalysisException,
            "TWO_TUMBLING_WINDOWS",
            None,
        ),
    ],
)
def test_bad_tumbling_windows_say_what_and_where(spark, sql: str, error: type, fragment: str, at: str | None) -> None:
    table(spark, "t", generated_rows(random.Random(1), 3, timedelta(minutes=1)))
    with pytest.raises(error) as info:
        spark.sql(sql).collect()
    message = str(info.value)
    assert fragment in message
    if at is not None:
        # The caret line points at the offending text of the user's statement.
        assert sql[caret_column(message) :].startswith(at), message


def test_the_rowtime_column_by_name_is_a_window_and_another_time_column_is_a_value(spark) -> None:
    """``STEP(s.ts ...)`` where ``ts`` is ``s``'s rowtime (its window's ORDER BY) is the tumbling
    window, with ``ROWTIME`` its end; a STEP of another timestamp column just groups by the value."""
    rng = random.Random(9)
    rows = generated_rows(rng, 50, timedelta(minutes=3), nulls=False)
    for r in rows:
        r["ts"], r["other"] = r.pop("ROWTIME"), T0 + timedelta(seconds=rng.randint(0, 300))
    spark.createDataFrame(rows, "id INT, k INT, v INT, ts TIMESTAMP, other TIMESTAMP").createOrReplaceTempView(
        "tumble_ts"
    )
    size = 60 * SEC
    by_rowtime = sorted(
        tuple(r)
        for r in spark.sql(
            "SELECT STREAM ROWTIME, STEP(ROWTIME BY INTERVAL '1' MINUTE) AS ws, k, COUNT(*) FROM tumble_ts "
            "OVER (ORDER BY ts RANGE CURRENT ROW) AS s GROUP BY k, STEP(s.ts BY INTERVAL '1' MINUTE)"
        ).collect()
    )
    groups = tumbling_groups(
        rows, "ts", lambda t: (step_floor(t, size), step_floor(t, size) + size), lambda r: (r["k"],)
    )
    assert by_rowtime == sorted((end, start, k, len(g)) for (end, start, k), g in groups.items())
    by_value = sorted(
        tuple(r)
        for r in spark.sql(
            "SELECT STEP(s.other BY INTERVAL '1' MINUTE) AS m, COUNT(*) FROM tumble_ts OVER (ORDER BY ts RANGE CURRENT ROW) AS s "
            "GROUP BY STEP(s.other BY INTERVAL '1' MINUTE)"
        ).collect()
    )
    counts: dict[datetime, int] = {}
    for r in rows:
        counts[step_floor(r["other"], size)] = counts.get(step_floor(r["other"], size), 0) + 1
    assert by_value == sorted(counts.items())


@pytest.mark.parametrize(
    "floor", ["FLOOR(MONOTONIC(order_date) TO MINUTE)", "STEP(MONOTONIC(o.order_date) BY INTERVAL '1' MINUTE)"]
)
def test_a_column_declared_monotonic_is_the_time_of_the_windows(spark, floor: str) -> None:
    """KDA applications group by `FLOOR(MONOTONIC("order_date") TO MINUTE)`: the column declared
    monotonic is the time of the block's windows (its input's rowtime), whatever ROWTIME the rows
    arrived with. A stream emits a window once the latest order_date less the lateness passes its end;
    over tables every window is returned. The model groups the rows by minute in Python."""
    rng = random.Random(31)
    rows: list[dict[str, Any]] = []
    for i in range(150):
        order_date = T0 + timedelta(milliseconds=900 * i)
        arrived = order_date + timedelta(seconds=45 + rng.randint(0, 5))  # ROWTIME: late, not ordered by minute
        rows.append({"ROWTIME": arrived, "order_date": order_date, "state": rng.choice(["CA", "WA", "NY"])})
    sql = f"SELECT STREAM ROWTIME, state, COUNT(*) AS n FROM {{src}} AS o GROUP BY {floor}, state"
    counts: dict[tuple[datetime, str], int] = {}
    for r in rows:
        key = (r["order_date"].replace(second=0, microsecond=0) + timedelta(minutes=1), r["state"])
        counts[key] = counts.get(key, 0) + 1
    expected = sorted((end, state, n) for (end, state), n in counts.items())
    schema = "ROWTIME TIMESTAMP, order_date TIMESTAMP, state STRING"
    spark.createDataFrame([(r["ROWTIME"], r["order_date"], r["state"]) for r in rows], schema).createOrReplaceTempView(
        "mono_t"
    )
    assert sorted(tuple(r) for r in spark.sql(sql.format(src="mono_t")).collect()) == expected
    src = make_stream(spark, "mono_s", schema)
    batches = [rows[i : i + 25] for i in range(0, len(rows), 25)]
    run = run_stream(spark, sql.format(src="mono_s"), [{"mono_s": b} for b in batches], {"mono_s": src})
    mark = rows[-1]["order_date"] - timedelta(milliseconds=1)
    got = sorted(tuple(r) for r in run.rows)
    assert got == [g for g in expected if g[0] <= mark] and len(got) >= 2 * 3  # two closed minutes
