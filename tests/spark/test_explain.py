"""EXPLAIN EXTENDED shows overjoin's nodes and its rewrite in a readable form."""

from __future__ import annotations

import datetime as dt


def test_explain_extended_shows_windows_and_the_rewritten_join(spark):
    t = dt.datetime(2024, 1, 1)
    spark.createDataFrame([(t, 1)], "rowtime timestamp, orderId int").createOrReplaceTempView("ex_orders")
    spark.createDataFrame([(t, 1)], "rowtime timestamp, orderId int").createOrReplaceTempView("ex_ships")
    text = spark.sql(
        "EXPLAIN EXTENDED SELECT STREAM ROWTIME, o.orderId FROM ex_ships AS s "
        "JOIN ex_orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId"
    ).collect()[0][0]
    parsed = text.split("== Analyzed Logical Plan ==")[0]
    analyzed = text.split("== Analyzed Logical Plan ==")[1].split("== Optimized Logical Plan ==")[0]
    assert "StreamJoinRoot block=0 SELECT STREAM" in parsed
    assert "WindowedInput o (RANGE INTERVAL '1' HOUR PRECEDING)" in parsed
    assert "WindowedInput s (default RANGE CURRENT ROW)" in parsed
    # The analyzed plan is plain Spark: the interval condition and the ROWTIME column.
    assert "WindowedInput" not in analyzed and "StreamJoinRoot" not in analyzed
    assert "-1 hours <= rowtime" in analyzed
    assert "AS ROWTIME#" in analyzed
