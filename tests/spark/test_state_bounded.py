"""The rewritten join keeps bounded state: Spark evicts rows once the watermark shows they can no
longer match, so state depends on window size x rate, not on how long the stream runs."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from tests.reference_model import Input, Join, Window, as_tuples, equi, evaluate
from tests.spark.streams import make_stream, run_stream

WINDOW_MINUTES = 10
BATCH_MINUTES = 5
BATCHES = 24  # 120 minutes of event time: 12 windows
ROWS_PER_BATCH = 5  # per input


@pytest.mark.streaming
def test_join_state_stays_bounded_and_falls(spark):
    schema = "rowtime timestamp, k int, v int"
    inputs = {"sb_left": make_stream(spark, "sb_left", schema), "sb_right": make_stream(spark, "sb_right", schema)}
    start = dt.datetime(2024, 5, 1, 0, 0)
    batches = []
    for b in range(BATCHES):
        rows = []
        for i in range(ROWS_PER_BATCH):
            t = start + dt.timedelta(minutes=b * BATCH_MINUTES + i)
            rows.append({"rowtime": t, "k": i % 3, "v": b * 100 + i})
        batches.append({"sb_left": rows, "sb_right": rows})
    sql = (
        f"SELECT STREAM ROWTIME, l.v AS lv, r.v AS rv FROM sb_left OVER (RANGE INTERVAL '{WINDOW_MINUTES}' MINUTE PRECEDING) AS l "
        "JOIN sb_right AS r ON l.k = r.k"
    )
    run = run_stream(spark, sql, batches, inputs)

    state = [sum(op["numRowsTotal"] for op in p["stateOperators"]) for p in run.progress if p["stateOperators"]]
    total_input = 2 * BATCHES * ROWS_PER_BATCH
    # A window holds at most (window / batch span + 2) batches of each input, plus the watermark's lag.
    per_input_bound = (WINDOW_MINUTES // BATCH_MINUTES + 2) * ROWS_PER_BATCH
    assert len(state) >= BATCHES
    assert max(state) <= 2 * per_input_bound, (state, per_input_bound)
    assert max(state) < total_input / 4
    # It falls: rows leave state as the watermark passes them, many times over the run.
    falls = sum(1 for a, b in itertools.pairwise(state) if b < a)
    assert falls >= BATCHES // 3, state
    # The second half of the stream does not hold more than the first: no growth with length.
    half = len(state) // 2
    assert max(state[half:]) <= max(state[:half]) + ROWS_PER_BATCH, state
    # And it still produced every match, each once: the reference model's rows (window 10 minutes,
    # same key, right at or after left; an inner match comes out with the later of its rows).
    rows = [r for b in batches for r in b["sb_left"]]
    model = evaluate(
        [
            Input("l", rows, "rowtime", Window.range(dt.timedelta(minutes=WINDOW_MINUTES))),
            Input("r", rows, "rowtime"),
        ],
        [Join("INNER", equi("l", "k", "r", "k"))],
    )
    expected = as_tuples(model, ["l", "r"], column="v")
    assert len(expected) > BATCHES * ROWS_PER_BATCH  # more than the rows meeting themselves
    assert sorted(tuple(r) for r in run.rows) == expected
