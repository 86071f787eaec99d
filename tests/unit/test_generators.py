"""The random case generator (tests/generators.py): deterministic, and it hits the corners."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta

from tests.generators import FLUSH_ID, T0, Case, describe, random_case, shrink

SEEDS = range(300)
CASES = [random_case(s) for s in SEEDS]


def test_same_seed_same_case_and_different_seeds_differ() -> None:
    assert random_case(42) == random_case(42)
    assert random_case(42).sql == random_case(42).sql
    assert random_case(42).batches() == random_case(42).batches()
    assert len({c.sql + repr(c.rows) for c in CASES}) == len(CASES)


def test_every_input_arrives_in_rowtime_order_with_unique_ids() -> None:
    for c in CASES:
        ids = [r["id"] for rs in c.rows for r in rs]
        assert len(ids) == len(set(ids)) and max(ids, default=0) < FLUSH_ID, c.seed
        for rs in c.rows:
            times = [r["rowtime"] for r in rs if r["rowtime"] is not None]
            assert times == sorted(times), c.seed
            assert all((t - T0) % timedelta(seconds=1) == timedelta(0) for t in times), c.seed


def test_join_types_windows_and_shapes_all_occur() -> None:
    kinds = Counter(k for c in CASES for k in c.kinds)
    assert set(kinds) == {"INNER", "LEFT", "RIGHT", "FULL", "CROSS"}
    assert kinds["CROSS"] < kinds["INNER"]
    assert 30 < sum(len(c.rows) == 3 for c in CASES) < 150
    over = Counter(o.split(" INTERVAL")[0] if o else "" for c in CASES for o in c.over)
    assert set(over) == {"", "RANGE CURRENT ROW", "RANGE", "RANGE BETWEEN"}
    for c in CASES:
        for w in c.windows:
            assert w.kind == "RANGE" and isinstance(w.a, timedelta) and w.a >= w.b >= timedelta(0)
        for view, alias in zip(c.views, c.aliases):
            assert f"{view} " in c.sql and f" AS {alias}" in c.sql
        assert c.sql.count(" ON ") == sum(k != "CROSS" for k in c.kinds)


def test_null_keys_ties_empty_inputs_and_null_rowtimes_occur() -> None:
    def has(pred) -> int:  # type: ignore[no-untyped-def]
        return sum(1 for c in CASES if pred(c))

    assert has(lambda c: any(r["k"] is None for rs in c.rows for r in rs)) > 150
    assert has(lambda c: any(len({r["rowtime"] for r in rs}) < len(rs) for rs in c.rows if rs)) > 150
    assert 3 <= has(lambda c: any(not rs for rs in c.rows)) < 60
    assert 10 <= has(lambda c: any(r["rowtime"] is None for rs in c.rows for r in rs)) < 100


def exact_edge_pairs(c: Case) -> int:
    """Pairs (x, y) across a join, same key, with y.t exactly on an end of x's reach."""
    count = 0
    for j, cond in enumerate(c.conditions):
        if cond is None:
            continue
        left = c.aliases.index(cond[0])
        wx, wy = c.windows[left], c.windows[j + 1]
        for x in c.rows[left]:
            for y in c.rows[j + 1]:
                if x["rowtime"] is None or y["rowtime"] is None or x["k"] is None or x["k"] != y["k"]:
                    continue
                if y["rowtime"] in (x["rowtime"] + wx.a - wy.b, x["rowtime"] + wx.b - wy.a):
                    count += 1
    return count


def test_rows_exactly_on_window_edges_are_present() -> None:
    joinable = [c for c in CASES if any(c.rows[c.aliases.index(cond[0])] for cond in c.conditions if cond)]
    with_edges = [c for c in joinable if exact_edge_pairs(c) > 0]
    assert len(with_edges) > 0.7 * len(joinable)


def test_batches_are_in_global_rowtime_order_and_keep_every_row() -> None:
    for c in CASES:
        batches = c.batches()
        for view, rs in zip(c.views, c.rows):
            assert [r for b in batches for r in b[view]] == list(rs), c.seed
        spans = [[r["rowtime"] for rs in b.values() for r in rs if r["rowtime"] is not None] for b in batches]
        spans = [s for s in spans if s]
        for earlier, later in itertools.pairwise(spans):
            assert max(earlier) < min(later), c.seed
    c = next(c for c in CASES if c.size() > 12)
    assert len(c.batches(1)) == 1 and len(c.batches(3)) == 3


def test_flush_rows_come_after_everything_and_are_filtered() -> None:
    for c in CASES[:50]:
        flush = c.flush_batches()
        assert len(flush) == 2
        times = [r["rowtime"] for rs in c.rows for r in rs if r["rowtime"] is not None]
        for b in flush:
            for view in c.views:
                (row,) = b[view]
                assert row["id"] >= FLUSH_ID
                assert not times or row["rowtime"] > max(times) + max(w.a for w in c.windows)
    assert Case.without_flush([(T0, 1, FLUSH_ID), (T0, 1, 2), (T0, None, FLUSH_ID + 11)]) == [(T0, 1, 2)]


def test_shrink_finds_a_minimal_failing_input() -> None:
    def has_match(c: Case) -> bool:
        return any(None not in t[1:] for t in c.expected())

    case = next(c for c in CASES if len(c.rows) == 2 and c.kinds == ("INNER",) and has_match(c) and c.size() >= 8)
    small = shrink(case, has_match)
    assert has_match(small)
    assert small.size() == 2 and all(len(rs) == 1 for rs in small.rows)
    assert small.sql == case.sql


def test_shrink_respects_its_budget() -> None:
    calls = []

    def never(c: Case) -> bool:
        calls.append(c)
        return False

    case = max(CASES, key=Case.size)
    assert shrink(case, never, max_calls=5) == case
    assert len(calls) == 5


def test_describe_shows_seed_sql_rows_and_differences() -> None:
    c = next(c for c in CASES if c.expected())
    text = describe(c, actual=[*c.expected()[1:], (T0, 1, 2)])
    assert f"seed {c.seed}" in text and c.sql in text
    assert all(str(r["id"]) in text for rs in c.rows for r in rs)
    assert "missing 1, unexpected 1" in text
