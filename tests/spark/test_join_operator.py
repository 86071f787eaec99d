"""overjoin's stream join operator at the edges of eviction (docs/operator.md, docs/semantics.md §8).

A row may be dropped from the join's state only once no row allowed to arrive later can meet it.
These cases put a later row exactly on that edge: lateness 4 s, an input row ``w`` whose life ends
at 5 s (``RANGE INTERVAL '5' SECOND PRECEDING`` from 0 s), a watermark of 4 s (both inputs have
reached 8 s), an empty micro-batch that runs with it, then a row at 5 s of the other input, still
on time, that must meet ``w``. Evicting (or padding) ``w`` one second too early loses the match
(or emits a padded row replay does not have). Every join type, the window on either side.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.generators import SCHEMA, T0, Case, describe
from tests.reference_model import CURRENT_ROW, Row, Window, multiset
from tests.spark.streams import make_stream, run_stream

pytestmark = pytest.mark.streaming

SEC = timedelta(seconds=1)


def _row(i: int, k: int, seconds: int) -> dict:
    return {"id": i, "k": k, "rowtime": T0 + seconds * SEC}


def edge_case(kind: str, window_on: str) -> tuple[Case, list[dict[str, list[dict]]]]:
    """The case and its micro-batches; ``window_on`` ("a" or "b") holds the windowed row ``w``."""
    w = _row(2001, 1, 0)  # life [0 s, 5 s]
    fill_w = _row(2002, 4, 8)  # w's input reaches 8 s ...
    fill1 = _row(1001, 2, 8)  # ... and so does the other: the watermark becomes 8 s - 4 s
    fill2 = _row(1002, 3, 8)  # a batch that runs with that watermark
    late_enough = _row(1003, 1, 5)  # still on time (5 s > 4 s), meets w at 5 s
    windowed = (Window.range(5 * SEC), "RANGE INTERVAL '5' SECOND PRECEDING")
    plain = (CURRENT_ROW, "")
    rows: tuple[tuple[Row, ...], ...]
    if window_on == "b":
        windows, rows = (plain, windowed), ((fill1, fill2, late_enough), (w, fill_w))
        batches = [{"ga": [fill1], "gb": [w, fill_w]}, {"ga": [fill2], "gb": []}, {"ga": [late_enough], "gb": []}]
    else:
        w, fill_w = dict(w, id=1001), dict(fill_w, id=1002)
        fill1, fill2, late_enough = dict(fill1, id=2001), dict(fill2, id=2002), dict(late_enough, id=2003)
        windows, rows = (windowed, plain), ((w, fill_w), (fill1, fill2, late_enough))
        batches = [{"ga": [w, fill_w], "gb": [fill1]}, {"ga": [], "gb": [fill2]}, {"ga": [], "gb": [late_enough]}]
    case = Case(0, tuple(x for x, _ in windows), tuple(t for _, t in windows), rows, (kind,), (("a", "b"),))
    return case, batches


@pytest.mark.parametrize("window_on", ["a", "b"])
@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
def test_a_row_on_the_eviction_edge_still_meets_its_match(spark, kind, window_on):
    case, batches = edge_case(kind, window_on)
    suffix = f"_e{kind}{window_on}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches + case.flush_batches()]
    spark.conf.set("spark.overjoin.lateness", "4 seconds")
    try:
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    finally:
        spark.conf.unset("spark.overjoin.lateness")
    actual = case.without_flush([tuple(r) for r in run.rows])
    expected = case.without_flush(case.expected())
    assert any(None not in t for t in expected), "the edge case lost its match in the model"
    assert multiset(actual) == multiset(expected), describe(case, actual)


def test_state_of_an_unknown_format_is_refused_with_a_clear_error(spark):
    """The join's state is versioned (docs/operator.md): a blob written by a later format fails
    with OJ401 (OVERJOIN_STATE_FORMAT) instead of being read wrongly; formats 1 (overjoin 0.1's,
    without the `held` field) and 2 read."""
    blob_cls = spark._jvm.io.overjoin.execution.join.JoinStateBlob
    old = bytearray(25)
    old[0] = 1
    old[17] = 3  # 3 rows on the left, little-endian, no `held` field in format 1
    assert blob_cls.rows(bytes(old)) == 3
    assert blob_cls.held(bytes(old)) == 2**63 - 1
    current = bytearray(33)
    current[0] = 2
    current[17:25] = (42).to_bytes(8, "little")
    current[25] = 2
    current[29] = 1
    assert blob_cls.rows(bytes(current)) == 3
    assert blob_cls.held(bytes(current)) == 42
    future = bytearray(33)
    future[0] = 3
    with pytest.raises(Exception) as failure:
        blob_cls.due(bytes(future))
    assert "OJ401" in str(failure.value) and "OVERJOIN_STATE_FORMAT" in str(failure.value)
    assert "state of a windowed join in format 3" in str(failure.value)
    assert "formats 1 and 2" in str(failure.value)


def test_sliding_state_of_an_unknown_format_names_the_sliding_window(spark):
    """A sliding window's state blob of a format this release does not know fails with OJ401, and
    the message says whose state it is (not a join's)."""
    state = spark._jvm.io.overjoin.execution.sliding.SlidingState
    assert state.decode(bytes([1, 0, 0, 0, 0]), 4, "a sliding window").size() == 0
    with pytest.raises(Exception) as failure:
        state.decode(bytes([9, 0, 0, 0, 0]), 4, "a sliding window")
    message = str(failure.value)
    assert "OJ401" in message and "state of a sliding window in format 9" in message, message
    assert "(it reads formats 1)" in message, message


def test_a_join_reuses_its_generated_code_across_micro_batches(spark):
    """A task hands its kernels (the join's generated projections, condition and output joiners)
    back when it ends and the next micro-batch's task of the same join takes them, although each
    micro-batch's plan gives the columns new expression ids (docs/operator.md, "Where the CPU
    goes"). Without reuse, every task of every batch leaves a set behind."""
    kernels = spark._jvm.io.overjoin.execution.join.JoinKernels
    case, batches = edge_case("LEFT", "b")
    suffix = "_kernels"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches + case.flush_batches()]
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    before = kernels.idleCount()
    spark.conf.set("spark.overjoin.lateness", "4 seconds")
    try:
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    finally:
        spark.conf.unset("spark.overjoin.lateness")
    tasks = partitions * sum(1 for p in run.progress if p["stateOperators"])
    assert tasks >= 4 * partitions, "the case should run several micro-batches of the join"
    assert kernels.idleCount() - before <= partitions, (before, kernels.idleCount(), tasks)
    expected = case.without_flush(case.expected())
    assert multiset(case.without_flush([tuple(r) for r in run.rows])) == multiset(expected)


def test_a_condition_with_a_subquery_sees_each_micro_batchs_result(spark):
    """A scalar subquery in the join condition is evaluated once per micro-batch and its result
    written into the generated condition. Kernels of such a join are never reused by a later
    batch (JoinKernels.Shape.reusable): a later batch's plan compares equal while the table under
    the subquery has changed, and a reused condition would still test the first batch's result."""
    spark.sql("DROP TABLE IF EXISTS ojsq_threshold")
    spark.sql("CREATE TABLE ojsq_threshold (x BIGINT) USING parquet")
    spark.sql("INSERT INTO ojsq_threshold VALUES (0)")
    inputs = {n: make_stream(spark, n, SCHEMA) for n in ("sqa", "sqb")}

    def batches():
        yield {"sqa": [_row(1, 1, 1)], "sqb": [_row(101, 1, 0)]}  # threshold 0: a1 meets b101
        spark.sql("INSERT INTO ojsq_threshold VALUES (150)")
        yield {"sqa": [_row(2, 1, 2)], "sqb": [_row(102, 1, 2)]}  # threshold 150: b101, b102 too small
        yield {"sqa": [_row(3, 1, 3)], "sqb": [_row(200, 1, 3)]}  # only b200 passes

    sql = (
        "SELECT STREAM a.id AS a_id, b.id AS b_id FROM sqa AS a JOIN sqb OVER (RANGE INTERVAL '10' SECOND "
        "PRECEDING) AS b ON a.k = b.k AND b.id > (SELECT max(x) FROM ojsq_threshold)"
    )
    spark.conf.set("spark.overjoin.lateness", "100 seconds")
    try:
        run = run_stream(spark, sql, batches(), inputs)
    finally:
        spark.conf.unset("spark.overjoin.lateness")
        spark.sql("DROP TABLE ojsq_threshold")
    assert [sorted(tuple(r) for r in b) for b in run.batches] == [[(1, 101)], [], [(3, 200)]]
