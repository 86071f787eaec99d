"""Ordered output in parallel (docs/semantics.md §8, ``spark.overjoin.emit = ordered``).

The rows waiting for the watermark are held by every task, not one: the ordered step's state
(read back with Spark's state data source) lies in more than one state-store partition, while the
output stays in non-descending ROWTIME across micro-batches and equals the reference rows.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta

import pytest

from tests.generators import SCHEMA, T0, Case
from tests.reference_model import CURRENT_ROW, Window, multiset
from tests.spark.streams import make_stream

pytestmark = pytest.mark.streaming

SEC = timedelta(seconds=1)


def test_ordered_output_waits_in_every_task_and_comes_out_sorted(spark):
    rows_a = [{"id": 1000 + i, "k": i % 20, "rowtime": T0 + (i // 2) * SEC} for i in range(80)]
    rows_b = [{"id": 5000 + i, "k": (i * 7) % 20, "rowtime": T0 + (i // 2) * SEC + SEC // 2} for i in range(80)]
    case = Case(
        0,
        (Window.range(5 * SEC), CURRENT_ROW),
        ("RANGE INTERVAL '5' SECOND PRECEDING", ""),
        (tuple(rows_a), tuple(rows_b)),
        ("LEFT",),
        (("a", "b"),),
    )
    views = ["oe_pa", "oe_pb"]
    inputs = {v: make_stream(spark, v, SCHEMA) for v in views}
    checkpoint = tempfile.mkdtemp(prefix="overjoin-ordered-")
    spark.conf.set("spark.overjoin.emit", "ordered")
    spark.conf.set("spark.overjoin.lateness", "15 seconds")
    try:
        query = (
            spark.sql(case.sql_reading(views))
            .writeStream.format("memory")
            .queryName("oe_parallel")
            .outputMode("append")
            .option("checkpointLocation", checkpoint)
            .start()
        )
    finally:
        spark.conf.unset("spark.overjoin.emit")
        spark.conf.unset("spark.overjoin.lateness")
    seen: list[tuple] = []
    try:
        for b in range(4):
            inputs["oe_pa"].write_batch(rows_a[b * 20 : (b + 1) * 20])
            inputs["oe_pb"].write_batch(rows_b[b * 20 : (b + 1) * 20])
            query.processAllAvailable()
            seen = [tuple(r) for r in spark.table("oe_parallel").collect()]
        waiting = spark.read.format("statestore").option("path", checkpoint).option("operatorId", 0).load()
        partitions = {r.partition_id for r in waiting.select("partition_id").collect()}
        assert len(partitions) > 1, f"rows wait in state-store partitions {partitions} only"
        # Far rows: the watermark passes everything, every waiting row comes out.
        far = T0 + 1000 * SEC
        inputs["oe_pa"].write_batch([{"id": 9001, "k": -1, "rowtime": far}])
        inputs["oe_pb"].write_batch([{"id": 9002, "k": -2, "rowtime": far}])
        query.processAllAvailable()
        inputs["oe_pa"].write_batch([{"id": 9003, "k": -1, "rowtime": far + 100 * SEC}])
        inputs["oe_pb"].write_batch([{"id": 9004, "k": -2, "rowtime": far + 100 * SEC}])
        query.processAllAvailable()
        seen = [tuple(r) for r in spark.table("oe_parallel").collect()]
    finally:
        query.stop()
    times = [r[0] for r in seen]
    assert times == sorted(times), "ordered output is not in ROWTIME order"
    actual = case.without_flush(seen)
    assert multiset(actual) == multiset(case.without_flush(case.expected()))


@pytest.mark.parametrize("op", [">=", "<="])
def test_ordered_mode_after_an_asof_join_of_streams_is_refused_before_it_starts(spark, op):
    """A stream-stream ASOF join runs as Spark's flatMapGroupsWithState, after which Spark runs no
    other stateful operator; overjoin says so, naming the inputs and the ways out, instead of
    Spark's generic global-watermark error at start."""
    from pyspark.errors import AnalysisException

    make_stream(spark, "oe_asof_x", "k string, ts timestamp, v int")
    make_stream(spark, "oe_asof_y", "k string, ts timestamp, w int")
    sql = f"SELECT ROWTIME, x.v, y.w FROM oe_asof_x x ASOF LEFT JOIN oe_asof_y y ON x.k = y.k AND y.ts {op} x.ts"
    spark.conf.set("spark.overjoin.emit", "ordered")
    try:
        with pytest.raises(AnalysisException) as refused:
            spark.sql(sql)
    finally:
        spark.conf.unset("spark.overjoin.emit")
    message = str(refused.value)
    assert "ORDERED_EMIT_AFTER_STREAM_ASOF" in message
    assert "oe_asof_x" in message and "oe_asof_y" in message
    assert "Unset spark.overjoin.emit" in message
    # Without ordered mode the same query is a valid stream.
    assert spark.sql(sql).isStreaming


def test_ordered_mode_without_rowtime_is_refused(spark):
    from pyspark.errors import AnalysisException

    make_stream(spark, "oe_nr_a", SCHEMA)
    make_stream(spark, "oe_nr_b", SCHEMA)
    spark.conf.set("spark.overjoin.emit", "ordered")
    try:
        with pytest.raises(AnalysisException, match="ORDERED_EMIT_WITHOUT_ROWTIME"):
            spark.sql(
                "SELECT STREAM a.id AS a_id, b.id AS b_id FROM oe_nr_a OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS a "
                "JOIN oe_nr_b AS b ON a.k = b.k"
            )
    finally:
        spark.conf.unset("spark.overjoin.emit")
