"""Every spelling of a join input is the same input (docs/semantics.md §1).

One stream join, run as a stream once per spelling of its two inputs: a streaming view, ``STREAM t``,
``STREAM(t)``, a subquery, with and without an alias, the window before or after the alias, and
the ``WATERMARK ts DELAY OF ...`` clause in each place Spark's grammar allows it. Every run must
return the same rows, keep the same number of rows in its state after each micro-batch, and
report the same watermark: the clause declares the input's rowtime and its lateness, 10 seconds
here (Spark's progress shows 1 ms more: overjoin only drops rows strictly older than its
watermark). A view made with ``withWatermark`` is the reference.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest

from tests.spark.streams import make_stream, run_stream

SCHEMA = "k INT, id INT, ts TIMESTAMP"
WM = "WATERMARK ts DELAY OF INTERVAL 10 SECONDS"
WINDOW = "OVER (RANGE INTERVAL '1' MINUTE PRECEDING)"
_n = itertools.count()


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 5, 1, 12, 0, 0) + dt.timedelta(seconds=s)


# Rows arrive in rowtime order except one late-but-within-10s row in the third batch (r@95 after
# r@100): the declared lateness keeps it. The last batch moves the watermark past every window.
BATCHES: list[dict[str, list[dict[str, Any]]]] = [
    {"l": [{"k": 1, "id": 1, "ts": at(0)}, {"k": 2, "id": 2, "ts": at(10)}], "r": [{"k": 1, "id": 101, "ts": at(5)}]},
    {
        "l": [{"k": 1, "id": 3, "ts": at(60)}],
        "r": [{"k": 1, "id": 102, "ts": at(50)}, {"k": 2, "id": 103, "ts": at(100)}],
    },
    {"l": [{"k": 2, "id": 4, "ts": at(110)}], "r": [{"k": 2, "id": 104, "ts": at(95)}]},
    {"l": [{"k": 9, "id": 5, "ts": at(400)}], "r": [{"k": 9, "id": 105, "ts": at(400)}]},
    {"l": [{"k": 9, "id": 6, "ts": at(500)}], "r": [{"k": 9, "id": 106, "ts": at(500)}]},
]

# (left, right) FROM-clause spellings; {l}/{r} are view names, {lt}/{rt} table names.
SPELLINGS = {
    "view, clause then alias": (f"{{l}} {WM} AS l", f"{{r}} {WM} {WINDOW} AS r"),
    "view, window first": (f"{{l}} {WM} l", f"{{r}} {WINDOW} {WM} AS r"),
    "view, window after alias": (f"{{l}} {WM} AS l", f"{{r}} {WM} AS r {WINDOW}"),
    "STREAM t": (f"STREAM {{lt}} {WM} AS l", f"STREAM {{rt}} {WM} {WINDOW} AS r"),
    "STREAM(t)": (f"STREAM({{lt}}) {WM} l", f"STREAM({{rt}}) {WM} AS r {WINDOW}"),
    "subquery with the clause": (f"(SELECT * FROM {{l}}) {WM} AS l", f"(SELECT * FROM {{r}}) {WINDOW} {WM} AS r"),
    "clause inside a subquery": (f"(SELECT * FROM {{l}} {WM}) AS l", f"(SELECT * FROM {{r}} {WM}) {WINDOW} AS r"),
    "named window": (f"{{l}} {WM} AS l", f"{{r}} {WM} AS r OVER w"),
}


def _query(left: str, right: str, named: bool) -> str:
    return f"SELECT STREAM ROWTIME, l.id AS lid, r.id AS rid FROM {left} LEFT JOIN {right} ON l.k = r.k" + (
        " WINDOW w AS (RANGE INTERVAL '1' MINUTE PRECEDING)" if named else ""
    )


def _run(spark, spelling: str | None):
    n = next(_n)
    names = {"l": f"sp_l{n}", "r": f"sp_r{n}"}
    inputs = {}
    for view in names.values():
        inputs[view] = make_stream(spark, view, SCHEMA, watermark=None if spelling else "ts, 10 seconds")
        spark.sql(f"CREATE TABLE {view}_t ({SCHEMA}) USING json LOCATION '{inputs[view].folder}'")
    try:
        if spelling is None:
            sql = _query(f"{names['l']} AS l", f"{names['r']} {WINDOW} AS r", named=False)
        else:
            left, right = SPELLINGS[spelling]
            fill = {"l": names["l"], "r": names["r"], "lt": names["l"] + "_t", "rt": names["r"] + "_t"}
            sql = _query(left.format(**fill), right.format(**fill), named="OVER w" in right)
        batches = [{names[side]: rows for side, rows in b.items()} for b in BATCHES]
        run = run_stream(spark, sql, batches, inputs)
    finally:
        for view in names.values():
            spark.sql(f"DROP TABLE IF EXISTS {view}_t")
    # Spark may add a no-data batch here and there, so compare what holds whatever the batching: the
    # peak and final state, and each distinct watermark in order. Only triggers that ran a batch
    # count: a trigger that found no new file (the query polled before the test wrote the first
    # one) reports no watermark and no state operator.
    ran = [p for p in run.progress if "addBatch" in p.durationMs]
    state = [sum(op.numRowsTotal for op in p.stateOperators) for p in ran]
    watermarks = [w for w, _ in itertools.groupby(p.eventTime.get("watermark") for p in ran)]
    return sorted((tuple(r) for r in run.rows), key=str), (max(state), state[-1]), watermarks


@pytest.fixture(scope="module")
def reference(spark):
    return _run(spark, None)


def test_the_reference_keeps_the_late_row_and_pads_the_rest(reference):
    rows, _, watermarks = reference
    # l lives [t, t], r [t, t + 60 s]. l1@0 has no r of key 1 in [-60, 0] and l2@10 none of key 2
    # in [-50, 10]: both padded at their own end. l3@60 meets r101@5 and r102@50; l4@110 meets
    # r103@100 and r104@95, which came after r103 but within the lateness.
    assert rows == sorted(
        [
            (at(0), 1, None),
            (at(10), 2, None),
            (at(60), 3, 101),
            (at(60), 3, 102),
            (at(110), 4, 103),
            (at(110), 4, 104),
            (at(400), 5, 105),
            (at(500), 6, 106),
        ],
        key=str,
    )
    assert watermarks[-1] == "2024-05-01T12:08:09.999Z"  # 500 s - 10 s - 1 ms


@pytest.mark.streaming
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_every_spelling_is_the_same_input(spark, reference, spelling):
    rows, state, watermarks = _run(spark, spelling)
    assert rows == reference[0]
    assert state == reference[1]
    # Which watermarks a run passes through depends on how the files fall into micro-batches; each
    # must be a rowtime of the input minus the declared 10 s (and Spark's 1 ms), and the last the same.
    assert watermarks[-1] == reference[2][-1]
    possible = {"1970-01-01T00:00:00.000Z"} | {
        (r["ts"] - dt.timedelta(seconds=10, milliseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        for b in BATCHES
        for rs in b.values()
        for r in rs
    }
    assert set(watermarks) <= possible, set(watermarks) - possible
