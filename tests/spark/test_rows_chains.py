"""ROWS windows in multi-way joins on streams (docs/semantics.md §3, §4, §8; docs/operator.md).

A join with a ROWS window whose result another stream join reads lets a matched row out only once
its life interval is final, and holds back the watermark it passes up. Generated three-input cases
(every join type but CROSS, ROWS windows on one or both inputs of the first join, sometimes on the
third, partitioned or not, RANGE windows mixed) run as streams, in rowtime order and out of order
within the lateness, and must return the reference model's rows.

Every window of the generated rows is closed at the end by flush rows, so the stream owes every row
of the model: for each ROWS input, n + 1 rows per partition at one time F1 (they end every window
of the generated rows), n + 1 more at F2 (they end the windows of the first ones), then one row per
input with a NULL key at F3 that moves every watermark past everything before F2. Rows that involve
a flush row are left out of the comparison on both sides.

Run more seeds with ``OVERJOIN_ROWS_CHAIN_SEEDS``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from tests.generators import FLUSH_ID, SCHEMA, T0, Case, describe, random_case
from tests.reference_model import Window, multiset
from tests.seeds import count
from tests.spark.streams import make_stream, run_stream, setting

pytestmark = pytest.mark.streaming

COUNT = count("OVERJOIN_ROWS_CHAIN_SEEDS", 8)
SEC = timedelta(seconds=1)


def rows_chain_case(seed: int) -> Case:
    """A generated three-input case, no CROSS join, with a ROWS window on at least one input of
    the first join (seeded)."""
    s = seed
    while True:
        case = random_case(s)
        s += 100_000
        if len(case.views) == 3 and "CROSS" not in case.kinds:
            break
    rng = random.Random(seed)
    windows, over = list(case.windows), list(case.over)
    chosen = rng.sample(range(2), rng.randint(1, 2)) + ([2] if rng.random() < 0.3 else [])
    for i in chosen:
        n = rng.randint(0, 2)
        form = rng.choice(["rows", "partitioned", "current", "between"])
        if form == "rows":
            windows[i], over[i] = Window.rows(n), f"ROWS {n} PRECEDING"
        elif form == "partitioned":
            windows[i], over[i] = Window.rows(n, ("k",)), f"PARTITION BY k ROWS {n} PRECEDING"
        elif form == "current":
            windows[i], over[i] = Window.rows(0), "ROWS CURRENT ROW"
        else:
            windows[i], over[i] = Window.rows(n), f"ROWS BETWEEN {n} PRECEDING AND CURRENT ROW"
    return replace(case, seed=seed, windows=tuple(windows), over=tuple(over))


def closing_batches(case: Case) -> list[dict[str, list[dict[str, Any]]]]:
    """The three flush batches described in the module docstring."""
    times = [r["rowtime"] for rs in case.rows for r in rs if r["rowtime"] is not None]
    widest = max([w.a for w in case.windows if isinstance(w.a, timedelta)] + [timedelta(0)])
    f1 = max(times) + 2 * widest + 100 * SEC
    f2, f3 = f1 + 2 * widest + 200 * SEC, f1 + 4 * widest + 600 * SEC
    ids = iter(range(FLUSH_ID + 100, FLUSH_ID + 100_000))
    level1: dict[str, list[dict[str, Any]]] = {v: [] for v in case.views}
    level2: dict[str, list[dict[str, Any]]] = {v: [] for v in case.views}
    for i, (v, w) in enumerate(zip(case.views, case.windows)):
        if w.kind != "ROWS":
            continue
        assert isinstance(w.a, int)
        # One partition (a key of this input's own) or every key the input holds, NULL included.
        keys = sorted({r["k"] for r in case.rows[i]}, key=lambda k: (k is None, k or 0)) if w.partition_by else [-1 - i]
        for level, at in ((level1, f1), (level2, f2)):
            for k in keys:
                level[v] += [{"id": next(ids), "k": k, "rowtime": at} for _ in range(w.a + 1)]
    last = {v: [{"id": next(ids), "k": None, "rowtime": f3}] for v in case.views}
    return [level1, level2, last]


def run_case(
    spark: Any, case: Case, batches: list[dict[str, list[dict[str, Any]]]], tag: str, lateness: str | None = None
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], Any]:
    """(actual, expected, run): the stream's rows and the model's over the same arrived rows."""
    suffix = f"_{tag}{case.seed}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches]
    with setting(spark, "spark.overjoin.lateness", lateness or None):
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    arrived = [[r for b in batches for r in b.get(v, [])] for v in case.views]
    expected = case.without_flush(case.with_rows(arrived).expected())
    return case.without_flush([tuple(r) for r in run.rows]), expected, run


@pytest.mark.parametrize("seed", range(8000, 8000 + COUNT), ids=lambda s: f"seed_{s}")
def test_rows_join_joined_again_in_order_matches_the_reference_model(spark, seed):
    case = rows_chain_case(seed)
    actual, expected, run = run_case(spark, case, case.batches() + closing_batches(case), "ci")
    assert multiset(actual) == multiset(expected), describe(case, actual)
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))
    assert dropped == 0, "a row the ROWS join let out late was dropped by the join above it"


@pytest.mark.parametrize("seed", range(8500, 8500 + COUNT), ids=lambda s: f"seed_{s}")
def test_rows_join_joined_again_out_of_order_matches_the_reference_model(spark, seed):
    case = rows_chain_case(seed)
    batches = case.shuffled_batches(4 * SEC, count=8) + closing_batches(case)
    actual, expected, _ = run_case(spark, case, batches, "co", lateness="4 seconds")
    assert multiset(actual) == multiset(expected), describe(case, actual)


def test_the_rows_join_below_waits_for_its_final_life_and_the_plan_says_so(spark):
    """`a OVER (ROWS 1) JOIN b LEFT JOIN c`: the first join is marked holdUntilFinal in the plan,
    the one above is not. a1's window is still open when c arrives; the rows that end it (a2, a3)
    come a batch later and make the pair (a1, b) live [11, 13), which c's [14, 16] does not meet.
    Let out with its open window, the pair would have met c."""
    from datetime import datetime

    def at(s: int) -> datetime:
        return datetime.fromisoformat(f"2024-01-01T00:00:{s:02d}")

    a = [{"id": 1001, "k": 1, "rowtime": at(10)}]
    later_a = [{"id": 1002, "k": 1, "rowtime": at(12)}, {"id": 1003, "k": 1, "rowtime": at(13)}]
    b = [{"id": 2001, "k": 1, "rowtime": at(11)}]
    c = [{"id": 3001, "k": 1, "rowtime": at(14)}]
    case = Case(
        1,
        (Window.rows(1), Window.range(5 * SEC), Window.range(2 * SEC)),
        ("ROWS 1 PRECEDING", "RANGE INTERVAL '5' SECOND PRECEDING", "RANGE INTERVAL '2' SECOND PRECEDING"),
        (tuple(a + later_a), tuple(b), tuple(c)),
        ("INNER", "LEFT"),
        (("a", "b"), ("b", "c")),
    )
    batches = [{"ga": a, "gb": b}, {"gc": c}, {"ga": later_a}, *closing_batches(case)]
    actual, expected, _ = run_case(spark, case, batches, "hp")
    assert (at(13), 1001, 2001, None) in expected  # the pair, padded: its life ended before c's began
    assert not any(t[1] == 1001 and t[3] == 3001 for t in expected)
    assert multiset(actual) == multiset(expected), describe(case, actual)

    streams = {v: make_stream(spark, v + "_plan", SCHEMA) for v in case.views}
    plan = spark.sql(case.sql_reading([s.name for s in streams.values()]))._jdf.queryExecution().analyzed()
    joins = [line for line in plan.toString().splitlines() if "WindowedJoin " in line]
    assert len(joins) == 2, plan.toString()
    assert sum("holdUntilFinal" in line for line in joins) == 1, plan.toString()
    assert "holdUntilFinal" in next(line for line in joins if "INNER" in line or "Inner" in line), plan.toString()


# ------------------------------------------------------------------------------------------------
# Generated: pairs whose life ends on the RANGE side long before the ROWS window closes


def short_range_case(seed: int) -> Case:
    """A ROWS join joined again whose pairs' lives end on their RANGE side (seeded): one of the first
    two inputs has a ROWS window and sparse rows (10 to 40 s apart), the other a RANGE window of 1
    to 8 s and rows close to them, so a pair's end is decided long before the ROWS row's window
    closes, and many never close. The ROWS input is never preserved by the first join (its padded
    rows wait for their window to close, §8); the second join is any join type with a RANGE window.
    """
    rng = random.Random(seed)
    rows_at = rng.randrange(2)  # which of a, b has the ROWS window
    n = rng.randint(0, 3)
    form = rng.choice(["rows", "partitioned", "current", "between"])
    if form == "rows":
        rows_window, rows_over = Window.rows(n), f"ROWS {n} PRECEDING"
    elif form == "partitioned":
        rows_window, rows_over = Window.rows(n, ("k",)), f"PARTITION BY k ROWS {n} PRECEDING"
    elif form == "current":
        rows_window, rows_over = Window.rows(0), "ROWS CURRENT ROW"
    else:
        rows_window, rows_over = Window.rows(n), f"ROWS BETWEEN {n} PRECEDING AND CURRENT ROW"

    def range_window() -> tuple[Window, str]:
        hi = rng.randint(1, 8)
        if rng.random() < 0.3:
            lo = rng.randint(1, hi)
            text = f"RANGE BETWEEN INTERVAL '{hi}' SECOND PRECEDING AND INTERVAL '{lo}' SECOND PRECEDING"
            return Window.range(hi * SEC, lo * SEC), text
        return Window.range(hi * SEC), f"RANGE INTERVAL '{hi}' SECOND PRECEDING"

    short, short_over = range_window()
    third, third_over = range_window() if rng.random() < 0.7 else (Window.range(0 * SEC), "RANGE CURRENT ROW")
    windows = [short, short, third]
    over = [short_over, short_over, third_over]
    windows[rows_at], over[rows_at] = rows_window, rows_over
    # INNER, or the outer join that keeps the RANGE side only.
    first = rng.choice(["INNER", "RIGHT" if rows_at == 0 else "LEFT"])
    second = rng.choices(["INNER", "LEFT", "RIGHT", "FULL"], weights=[1, 3, 2, 2])[0]

    def key() -> int | None:
        return None if rng.random() < 0.1 else rng.randint(1, 2)

    t, sparse = 0, []
    for _ in range(rng.randint(3, 7)):
        t += rng.randint(10, 40)
        sparse.append((t, key()))
    near = [
        (x + rng.randint(-8, 3), k if rng.random() < 0.8 else key())
        for x, k in sparse
        for _ in range(rng.randint(0, 2))
    ]
    third_rows = [
        (x + rng.randint(-4, 9), k if rng.random() < 0.7 else key()) for x, k in sparse + near if rng.random() < 0.6
    ]
    drafts = [sparse, near] if rows_at == 0 else [near, sparse]
    drafts.append(third_rows)
    rows = tuple(
        tuple(
            {"id": 1000 * (i + 1) + j, "k": k, "rowtime": T0 + (40 + s) * SEC}
            for j, (s, k) in enumerate(sorted(d, key=lambda sk: sk[0]))
        )
        for i, d in enumerate(drafts)
    )
    on = (rng.choice(["a", "b"]), "c")
    return Case(seed, tuple(windows), tuple(over), rows, (first, second), (("a", "b"), on))


def far_batches(case: Case) -> list[dict[str, list[dict[str, Any]]]]:
    """Two batches of one row per input far in the future, each input with a key of its own: they
    meet nothing, and after them every watermark is past every RANGE window of the case. They close
    no ROWS window but those of the last n + 1 (or fewer) rows of a partition, and the watermark
    does not pass the second one: the windows of those rows stay open to the stream."""
    times = [r["rowtime"] for rs in case.rows for r in rs if r["rowtime"] is not None]
    widest = max([w.a for w in case.windows if isinstance(w.a, timedelta)] + [timedelta(0)])
    far = max(times) + 2 * widest + 100 * SEC
    return [
        {
            v: [{"id": FLUSH_ID + 10 * m + i, "k": -1 - i, "rowtime": far + m * (widest + 100 * SEC)}]
            for i, v in enumerate(case.views)
        }
        for m in range(2)
    ]


@pytest.mark.parametrize("seed", range(9100, 9100 + COUNT), ids=lambda s: f"seed_{s}")
def test_pairs_ended_by_a_short_range_window_stream_in_order(spark, seed):
    case = short_range_case(seed)
    actual, expected, run = run_case(spark, case, case.batches() + far_batches(case), "si")
    assert multiset(actual) == multiset(expected), describe(case, actual)
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))
    assert dropped == 0, f"seed {seed}: a row was dropped as late"


@pytest.mark.parametrize("seed", range(9600, 9600 + COUNT), ids=lambda s: f"seed_{s}")
def test_pairs_ended_by_a_short_range_window_stream_out_of_order(spark, seed):
    case = short_range_case(seed)
    batches = case.shuffled_batches(4 * SEC, count=8) + far_batches(case)
    actual, expected, _ = run_case(spark, case, batches, "so", lateness="4 seconds")
    assert multiset(actual) == multiset(expected), describe(case, actual)


# ------------------------------------------------------------------------------------------------
# A matched row whose life ends on its RANGE side, long before its ROWS window closes (issue 21)

ISSUE21_SQL = (
    "SELECT STREAM ROWTIME, a.k AS ak, a.v AS av, a.ROWTIME AS a_time, b.k AS bk, b.w AS bw, "
    "b.ROWTIME AS b_time, c.k AS ck, c.u AS cu, c.ROWTIME AS c_time "
    "FROM {cl} OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS a "
    "JOIN {cr} OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS b ON a.k = b.k "
    "LEFT JOIN {cz} OVER (RANGE CURRENT ROW) AS c ON c.k = coalesce(a.k, b.k)"
)
ISSUE21_SCHEMAS = {
    "cl": ("v", "k INT, v INT, ROWTIME TIMESTAMP"),
    "cr": ("w", "k INT, w INT, ROWTIME TIMESTAMP"),
    "cz": ("u", "k INT, u INT, ROWTIME TIMESTAMP"),
}


def _issue21_rows() -> dict[str, list[dict[str, Any]]]:
    from datetime import datetime

    def at(hms: str) -> datetime:
        return datetime.fromisoformat(f"2024-01-01T{hms}")

    given: dict[str, list[tuple[int | None, int, str]]] = {
        "cl": [(None, 0, "08:01:20"), (1, 1, "08:02:00"), (None, 2, "08:03:00"), (2, 3, "08:01:50")],
        "cr": [(2, 100, "08:00:50"), (2, 101, "08:00:10"), (2, 102, "08:00:40")],
        "cz": [(None, 200, "08:03:00"), (1, 201, "08:02:40"), (1, 202, "08:01:40")],
    }
    return {
        view: [{"k": k, ISSUE21_SCHEMAS[view][0]: x, "ROWTIME": at(t)} for k, x, t in rows]
        for view, rows in given.items()
    }


def _issue21_model(arrived: dict[str, list[dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """The reference model's answer, as the query's columns."""
    from tests.reference_model import CURRENT_ROW, Input, Join, equi, evaluate, sort_key

    def c_on(env: Any) -> bool | None:
        c, a, b = env.get("c"), env.get("a"), env.get("b")
        key = next((r["k"] for r in (a, b) if r is not None and r["k"] is not None), None)
        return None if c is None or c["k"] is None or key is None else c["k"] == key

    outs = evaluate(
        [
            Input("a", arrived["cl"], "ROWTIME", Window.rows(2)),
            Input("b", arrived["cr"], "ROWTIME", Window.range(60 * SEC)),
            Input("c", arrived["cz"], "ROWTIME", CURRENT_ROW),
        ],
        [Join("INNER", equi("a", "k", "b", "k")), Join("LEFT", c_on)],
    )

    def cols(row: dict[str, Any] | None, value: str) -> tuple[Any, ...]:
        return (None, None, None) if row is None else (row["k"], row[value], row["ROWTIME"])

    return sorted(
        ((o.rowtime, *cols(o.rows["a"], "v"), *cols(o.rows["b"], "w"), *cols(o.rows["c"], "u")) for o in outs),
        key=sort_key,
    )


def _issue21_run(spark: Any, batches: list[dict[str, list[dict[str, Any]]]], tag: str) -> list[tuple[Any, ...]]:
    """Streams ``batches`` through the query and checks it against the reference model and replay
    over the same rows (in arrival order); returns the model's rows."""
    views = list(ISSUE21_SCHEMAS)
    arrived = {view: [r for b in batches for r in b.get(view, [])] for view in views}
    expected = _issue21_model(arrived)

    suffix = f"_i21{tag}"
    inputs = {view + suffix: make_stream(spark, view + suffix, ISSUE21_SCHEMAS[view][1]) for view in views}
    fed = [{view + suffix: rs for view, rs in b.items()} for b in batches]
    run = run_stream(spark, ISSUE21_SQL.format(**{view: view + suffix for view in views}), fed, inputs)
    assert multiset([tuple(r) for r in run.rows]) == multiset(expected), (expected, run.batches)
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))
    assert dropped == 0, "a row was dropped as late: the feed is not what the test means"

    # Replay: the same query over tables (arrival order = the tables' row order, §3).
    for view, rs in arrived.items():
        spark.createDataFrame(rs, ISSUE21_SCHEMAS[view][1]).createOrReplaceTempView(view + suffix + "_t")
    replay = spark.sql(ISSUE21_SQL.format(**{view: view + suffix + "_t" for view in views})).collect()
    assert multiset([tuple(r) for r in replay]) == multiset(expected)
    return expected


def _issue21_flush() -> dict[str, list[dict[str, Any]]]:
    """One row per input far in the future (09:00), with a NULL key: it meets nothing."""
    from datetime import datetime

    far = datetime(2024, 1, 1, 9, 0, 0)
    return {view: [{"k": None, value: 999, "ROWTIME": far}] for view, (value, _) in ISSUE21_SCHEMAS.items()}


@pytest.mark.parametrize("feed", ["one_batch", "row_by_row", "b_last"])
def test_a_matched_row_whose_life_ends_on_its_range_side_is_not_held_until_the_rows_window_closes(spark, feed):
    """Issue 21. a (ROWS 2) JOIN b (RANGE 1 minute) LEFT JOIN c: the pair (a v=3 at 08:01:50, b
    w=100 at 08:00:50) lives [08:01:50, 08:01:50], its end set by b's window; a's window closes only
    at the row far in the future, which the watermark never passes. Once the watermark passes
    08:01:50 the pair's life is final and the LEFT JOIN above pads it. The ROWS join's state still
    holds a's row then (what it can still meet comes later), which must not hold back the watermark
    it passes up: every output row it can still make with that row starts after the watermark."""
    from datetime import datetime

    rows, flush = _issue21_rows(), _issue21_flush()
    if feed == "one_batch":
        batches = [rows, flush]
    elif feed == "row_by_row":
        batches = [{view: [r]} for view, rs in rows.items() for r in rs] + [flush]
    else:  # b's rows last, after a's and c's: a's rows are 70 s past the pair when it is found
        batches = [{"cl": rows["cl"]}, {"cz": rows["cz"]}, {"cr": rows["cr"]}, flush]
    expected = _issue21_run(spark, batches, feed)
    t = datetime.fromisoformat
    at = t("2024-01-01T08:01:50")
    assert expected == [(at, 2, 3, at, 2, 100, t("2024-01-01T08:00:50"), None, None, None)]


def test_a_rows_window_can_still_close_below_the_latest_row_seen(spark):
    """The same query, and three more rows of cl at 08:01:50 arriving after 08:03:00 was seen (not
    late: cr holds the watermark at 08:00:50). Tied on rowtime, they come after a v=3 in its order
    (§3), so they close its window at 08:01:50: its life [08:01:50, 08:01:50) is empty and the pair
    with b w=100 never existed. So the pair may not be let out before the watermark reaches its end,
    however late the rows seen of a's partition are; the three new rows each meet b w=100 instead."""
    from datetime import datetime

    rows = _issue21_rows()
    at = datetime(2024, 1, 1, 8, 1, 50)
    ties = [{"k": 2, "v": v, "ROWTIME": at} for v in (4, 5, 6)]
    expected = _issue21_run(spark, [rows, {"cl": ties}, _issue21_flush()], "ties")
    b_time = datetime(2024, 1, 1, 8, 0, 50)
    assert expected == [(at, 2, v, at, 2, 100, b_time, None, None, None) for v in (4, 5, 6)]
