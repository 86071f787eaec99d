"""ROWS windows over tables (docs/semantics.md §2-4), against the reference model.

A row's life interval is `[x.t, s.t)` with `s` the `(n+1)`-th later row of its input (per
partition under PARTITION BY); a null-padded row whose window never closed gets the largest rowtime
of the inputs. Generated cases reuse the RANGE generator's inputs and joins with ROWS windows.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tests.generators import SCHEMA, Case, describe, random_case
from tests.reference_model import Window, multiset
from tests.seeds import count

SEEDS = range(count("OVERJOIN_ROWS_SEEDS", 40))


def with_rows_windows(case: Case) -> Case:
    rng = random.Random(case.seed * 31 + 7)
    windows, over = [], []
    for w, o in zip(case.windows, case.over):
        form = rng.choice(["keep", "rows", "rows", "partitioned", "current", "between"])
        n = rng.randint(0, 3)
        if form == "keep":
            windows.append(w)
            over.append(o)
        elif form == "rows":
            windows.append(Window.rows(n))
            over.append(f"ROWS {n} PRECEDING")
        elif form == "partitioned":
            windows.append(Window.rows(n, ("k",)))
            over.append(f"PARTITION BY k ROWS {n} PRECEDING")
        elif form == "current":
            windows.append(Window.rows(0))
            over.append("ROWS CURRENT ROW")
        else:
            windows.append(Window.rows(n))
            over.append(f"ROWS BETWEEN {n} PRECEDING AND CURRENT ROW")
    return replace(case, windows=tuple(windows), over=tuple(over))


def replay(spark, case: Case) -> list[tuple]:
    for i, view in enumerate(case.views):
        spark.createDataFrame(case.table_rows(i), SCHEMA).createOrReplaceTempView(view)
    return [tuple(r) for r in spark.sql(case.sql).collect()]


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed_{s}")
def test_rows_windows_match_the_reference_model(spark, seed):
    case = with_rows_windows(random_case(seed))
    actual = replay(spark, case)
    if multiset(actual) != multiset(case.expected()):
        pytest.fail(f"ROWS windows differ from the reference model (seed {seed}).\n{describe(case, actual)}")


def _partitioned_outer_cases(count: int) -> list[Case]:
    """Generated outer joins whose every input has a partitioned ROWS window (§8: a padded
    row of a kept side with a partitioned ROWS window comes out when its partition's window
    closes; replay knows every end)."""
    cases: list[Case] = []
    seed = 5000
    while len(cases) < count:
        case = random_case(seed)
        seed += 1
        if not any(k in ("LEFT", "RIGHT", "FULL") for k in case.kinds):
            continue
        rng = random.Random(seed)
        ns = [rng.randint(0, 2) for _ in case.windows]
        cases.append(
            replace(
                case,
                windows=tuple(Window.rows(n, ("k",)) for n in ns),
                over=tuple(f"PARTITION BY k ROWS {n} PRECEDING" for n in ns),
            )
        )
    return cases


@pytest.mark.parametrize(
    "case",
    _partitioned_outer_cases(count("OVERJOIN_ROWS_SEEDS", 40) // 2),
    ids=lambda c: f"seed_{c.seed}",
)
def test_outer_join_keeping_a_partitioned_rows_window_matches_the_reference_model(spark, case):
    actual = replay(spark, case)
    if multiset(actual) != multiset(case.expected()):
        pytest.fail(
            f"partitioned ROWS windows differ from the reference model (seed {case.seed}).\n{describe(case, actual)}"
        )
