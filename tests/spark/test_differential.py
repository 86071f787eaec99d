"""Randomized differential tests: overjoin on Spark against the pure-Python reference model.

Each seed generates a join query (2-3 inputs, every join type, random RANGE windows) and small
inputs with several keys, NULL keys, ties on rowtime and rows exactly on window edges
(``tests/generators.py``). The rows overjoin returns, ROWTIME included, must equal the model's
as a multiset:

- in replay, over static tables;
- as a stream, with the input split into micro-batches in rowtime order and two final batches
  that move the watermark past everything, once for each way of naming a stream input
  (a streaming view, ``STREAM t``, ``STREAM(t)``, a view of ``spark.readStream.table(t)``).

A failure prints the seed and a shrunk, minimal input. Reproduce one seed with
``pytest tests/spark/test_differential.py -k 'seed_17'``; run more with ``OVERJOIN_DIFF_SEEDS`` (and the
other ``OVERJOIN_DIFF_*_SEEDS``), or every count times ``OVERJOIN_SOAK`` (``make soak``). The
streamed seeds are chosen (``streamed_seeds``) to cover every join type and three-input joins,
each case with some output.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.generators import SCHEMA, Case, describe, random_case, shrink
from tests.reference_model import multiset
from tests.seeds import count, covering
from tests.spark.streams import make_stream, run_stream, setting

#: What the streamed seeds must cover between them: every join type and two- and three-input joins.
JOIN_FEATURES = {"INNER", "LEFT", "RIGHT", "FULL", "CROSS", "2 inputs", "3 inputs"}


def join_features(seed: int) -> set[str]:
    """The join types of case ``seed`` and its number of inputs."""
    case = random_case(seed)
    return {*case.kinds, f"{len(case.views)} inputs"}


def has_output(seed: int) -> bool:
    """Whether case ``seed`` returns any row (flush rows aside): a case with none proves little."""
    case = random_case(seed)
    return bool(case.without_flush(case.expected()))


def streamed_seeds(start: int, variable: str, default: int) -> list[int]:
    """Seeds from ``start`` on whose cases have output and cover :data:`JOIN_FEATURES` between them."""
    return covering(range(start, start + 100_000), count(variable, default), join_features, JOIN_FEATURES, has_output)


REPLAY_SEEDS = range(count("OVERJOIN_DIFF_SEEDS", 60))
STREAM_SEEDS = streamed_seeds(1000, "OVERJOIN_DIFF_STREAM_SEEDS", 8)


def test_the_streamed_seeds_cover_every_join_type_and_three_inputs():
    """The default streamed seeds (and more with ``OVERJOIN_SOAK``) run every join type, a
    three-input join, and only cases that return rows."""
    for seeds in (STREAM_SEEDS, LATE_SEEDS, SPARK_OPERATOR_SEEDS):
        assert set().union(*(join_features(s) for s in seeds)) == JOIN_FEATURES, seeds
        assert all(has_output(s) for s in seeds), seeds


def _replay(spark, case: Case) -> list[tuple]:
    for i, view in enumerate(case.views):
        spark.createDataFrame(case.table_rows(i), SCHEMA).createOrReplaceTempView(view)
    return [tuple(r) for r in spark.sql(case.sql).collect()]


def _fail(case: Case, actual: list[tuple], still_fails) -> None:
    small = shrink(case, still_fails, max_calls=60)
    pytest.fail(
        f"overjoin and the reference model differ (seed {case.seed}).\n"
        f"Minimal failing input:\n{describe(small)}\n\nFull case:\n{describe(case, actual)}"
    )


@pytest.mark.parametrize("seed", REPLAY_SEEDS, ids=lambda s: f"seed_{s}")
def test_replay_matches_the_reference_model(spark, seed):
    case = random_case(seed)
    actual = _replay(spark, case)
    if multiset(actual) != multiset(case.expected()):
        _fail(case, actual, lambda c: multiset(_replay(spark, c)) != multiset(c.expected()))


def _has_outer_join_feeding_another(case: Case) -> bool:
    """Spark's own join cannot stream an outer join whose result is joined again (OJ301)."""
    return any(k in ("LEFT", "RIGHT", "FULL") for k in case.kinds[:-1])


#: docs/semantics.md §1: every way of naming a stream is the same join input.
SPELLINGS = ("view", "stream", "stream_parens", "table_view")


def _stream(spark, case: Case, spelling: str = "view") -> list[tuple]:
    suffix = f"_s{case.seed}_{spelling}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    sources = [v + suffix for v in case.views]
    if spelling != "view":
        # A table over each input's folder: read as `STREAM t`, `STREAM(t)`, or through a
        # streaming temp view of `spark.readStream.table(t)`.
        for name in sources:
            spark.sql(f"CREATE TABLE {name}_t ({SCHEMA}) USING json LOCATION '{inputs[name].folder}'")
        sources = {
            "stream": [f"STREAM {n}_t" for n in sources],
            "stream_parens": [f"STREAM({n}_t)" for n in sources],
            "table_view": [f"{n}_tv" for n in sources],
        }[spelling]
        if spelling == "table_view":
            for n in sources:
                spark.readStream.table(n[:-1]).createOrReplaceTempView(n)
    batches = [{v + suffix: rows for v, rows in b.items()} for b in case.batches() + case.flush_batches()]
    try:
        run = run_stream(spark, case.sql_reading(sources), batches, inputs)
    finally:
        for name in inputs:
            spark.sql(f"DROP TABLE IF EXISTS {name}_t")
    return case.without_flush([tuple(r) for r in run.rows])


@pytest.mark.streaming
@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("seed", STREAM_SEEDS, ids=lambda s: f"seed_{s}")
def test_stream_matches_the_reference_model(spark, seed, spelling):
    case = random_case(seed)
    actual = _stream(spark, case, spelling)
    expected = case.without_flush(case.expected())
    if multiset(actual) != multiset(expected):
        # Each try is a streaming run of a few seconds: shrink a little, not to the minimum.
        small = shrink(
            case,
            lambda c: multiset(_stream(spark, c, spelling)) != multiset(c.without_flush(c.expected())),
            max_calls=8,
        )
        pytest.fail(
            f"stream ({spelling}) differs from the reference model (seed {seed}).\n"
            f"Smaller failing input:\n{describe(small)}\n\nFull case:\n{describe(case, actual)}"
        )


ORDERED_SEEDS = streamed_seeds(2000, "OVERJOIN_DIFF_ORDERED_SEEDS", 4)


@pytest.mark.streaming
@pytest.mark.parametrize("seed", ORDERED_SEEDS, ids=lambda s: f"seed_{s}")
def test_ordered_stream_matches_the_reference_model_in_rowtime_order(spark, seed):
    """spark.overjoin.emit = ordered (docs/semantics.md §8), with every input's own rowtime selected
    beside ROWTIME as seed 004 does: the same rows as the model, released in non-descending ROWTIME
    across the whole stream."""
    _check_ordered(spark, random_case(seed))


def _pads_after_its_rowtime(case: Case) -> bool:
    """Whether the top join of ``case`` keeps its right input's rows (RIGHT, FULL) and its left input
    is an outer join: a row of the right input is then padded only once no later row of the left can
    meet it, which can be after the watermark has passed its ROWTIME (docs/operator.md)."""
    return len(case.kinds) == 2 and case.kinds[1] in ("RIGHT", "FULL") and case.kinds[0] in ("LEFT", "RIGHT", "FULL")


#: Generated cases in which the top join pads rows after the watermark has passed their ROWTIME.
LATE_PAD_SEEDS = [s for s in range(5000, 9000) if _pads_after_its_rowtime(random_case(s))][
    : count("OVERJOIN_DIFF_LATE_PAD_SEEDS", 4)
]


@pytest.mark.streaming
@pytest.mark.parametrize("seed", LATE_PAD_SEEDS, ids=lambda s: f"seed_{s}")
def test_rows_padded_after_the_watermark_reach_the_operator_above(spark, seed):
    """A join's padded row can leave after the watermark has passed its ROWTIME, so the watermark
    the join passes up is held back by as much; here ordered emit, a stateful operator above the
    join that drops rows below its watermark, must still get every padded row, in ROWTIME order."""
    _check_ordered(spark, random_case(seed))


def _check_ordered(spark, case: Case) -> None:
    suffix = f"_o{case.seed}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    extra = ", ".join(f"{a}.ROWTIME AS {a}_rt" for a in case.aliases)
    sql = case.sql_reading([v + suffix for v in case.views]).replace(
        "SELECT STREAM ROWTIME, ", f"SELECT STREAM ROWTIME, {extra}, ", 1
    )
    batches = [{v + suffix: rows for v, rows in b.items()} for b in case.batches() + case.flush_batches()]
    spark.conf.set("spark.overjoin.emit", "ordered")
    try:
        run = run_stream(spark, sql, batches, inputs)
    finally:
        spark.conf.unset("spark.overjoin.emit")
    n = len(case.aliases)
    rows = [tuple(r) for r in run.rows]
    assert [r[0] for r in rows] == sorted(r[0] for r in rows), "rows were not released in ROWTIME order"
    actual = case.without_flush([(r[0], *r[1 + n :]) for r in rows])
    assert multiset(actual) == multiset(case.without_flush(case.expected()))


SPARK_OPERATOR_SEEDS = streamed_seeds(3000, "OVERJOIN_DIFF_SPARK_SEEDS", 6)


@pytest.mark.streaming
@pytest.mark.parametrize("seed", SPARK_OPERATOR_SEEDS, ids=lambda s: f"seed_{s}")
def test_spark_operator_matches_the_reference_model(spark, seed):
    """spark.overjoin.join.operator = spark: RANGE windows on Spark's own stream-stream join give
    the same rows; an outer join whose result is joined again is refused before it starts."""
    case = random_case(seed)
    spark.conf.set("spark.overjoin.join.operator", "spark")
    try:
        if _has_outer_join_feeding_another(case):
            from pyspark.errors import AnalysisException

            with pytest.raises(AnalysisException, match="OJ301"):
                _stream(spark, case)
            return
        actual = _stream(spark, case)
    finally:
        spark.conf.unset("spark.overjoin.join.operator")
    assert multiset(actual) == multiset(case.without_flush(case.expected())), describe(case, actual)


LATE_SEEDS = streamed_seeds(4000, "OVERJOIN_DIFF_LATE_SEEDS", 8)


@pytest.mark.streaming
@pytest.mark.parametrize("seed", LATE_SEEDS, ids=lambda s: f"seed_{s}")
def test_out_of_order_stream_matches_the_reference_model(spark, seed):
    """Rows arrive out of rowtime order, each within the lateness (docs/semantics.md §8): none is
    late, so the stream must return exactly the replay rows; the operator must keep every row a
    later, out-of-order row can still meet, and pad a row only once no such row can arrive."""
    case = random_case(seed)
    suffix = f"_l{case.seed}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    batches = [
        {v + suffix: rows for v, rows in b.items()}
        for b in case.shuffled_batches(timedelta(seconds=4), count=10) + case.flush_batches()
    ]
    with setting(spark, "spark.overjoin.lateness", "4 seconds"):
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), batches, inputs)
    actual = case.without_flush([tuple(r) for r in run.rows])
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))
    assert dropped == 0, f"{dropped} rows were dropped as late, but none arrived late"
    assert multiset(actual) == multiset(case.without_flush(case.expected())), describe(case, actual)
