"""spark.overjoin.* settings: lateness, and the emit mode that is refused until it exists."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import AnalysisException

from tests.spark.streams import make_stream, run_stream

Q = ("SELECT STREAM ROWTIME, a.id AS aid, b.id AS bid FROM {a} OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
     "JOIN {b} AS b ON a.k = b.k")


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 7, 1) + dt.timedelta(seconds=s)


def test_ordered_emit_mode_is_refused_not_ignored(spark):
    spark.createDataFrame([(at(0), 1, 1)], "rowtime timestamp, k int, id int").createOrReplaceTempView("em_a")
    spark.createDataFrame([(at(0), 1, 2)], "rowtime timestamp, k int, id int").createOrReplaceTempView("em_b")
    try:
        spark.conf.set("spark.overjoin.emit", "ordered")
        with pytest.raises(AnalysisException, match="OJ117"):
            spark.sql(Q.format(a="em_a", b="em_b"))
        spark.conf.set("spark.overjoin.emit", "sometimes")
        with pytest.raises(AnalysisException, match="unordered"):
            spark.sql(Q.format(a="em_a", b="em_b"))
    finally:
        spark.conf.unset("spark.overjoin.emit")
    assert spark.sql(Q.format(a="em_a", b="em_b")).count() == 1


def test_bad_lateness_names_the_setting(spark):
    spark.createDataFrame([(at(0), 1, 1)], "rowtime timestamp, k int, id int").createOrReplaceTempView("bl_a")
    try:
        spark.conf.set("spark.overjoin.lateness", "soon")
        with pytest.raises(AnalysisException, match="spark.overjoin.lateness"):
            spark.sql(Q.format(a="bl_a", b="bl_a"))
    finally:
        spark.conf.unset("spark.overjoin.lateness")


@pytest.mark.streaming
def test_lateness_keeps_rows_that_would_otherwise_be_late(spark):
    try:
        spark.conf.set("spark.overjoin.lateness", "30 seconds")
        inputs = {"lt_a": make_stream(spark, "lt_a", "rowtime timestamp, k int, id int"),
                  "lt_b": make_stream(spark, "lt_b", "rowtime timestamp, k int, id int")}
        batches = [
            {"lt_a": [{"rowtime": at(100), "k": 1, "id": 1}], "lt_b": [{"rowtime": at(100), "k": 1, "id": 2}]},
            # 20 s behind the latest rowtime: within the 30 s lateness, so joined, not dropped.
            {"lt_a": [{"rowtime": at(80), "k": 2, "id": 3}], "lt_b": [{"rowtime": at(85), "k": 2, "id": 4}]},
        ]
        run = run_stream(spark, Q.format(a="lt_a", b="lt_b"), batches, inputs)
        assert [sorted(tuple(r) for r in b) for b in run.batches] == [[(at(100), 1, 2)], [(at(85), 3, 4)]]
    finally:
        spark.conf.unset("spark.overjoin.lateness")
