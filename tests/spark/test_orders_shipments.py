"""Acceptance: the Orders/Shipments example of the Kinesis Data Analytics SQL reference (seed 000).

The seed's query, written exactly as in the seed, must return the seed's five rows with their
rowtimes, both over static tables (replay) and as a stream fed in several micro-batches.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.spark.streams import make_stream, run_stream

QUERY = (
    "SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime "
    "FROM Shipments AS s JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o "
    "ON o.orderId = s.orderId"
)


def t(hhmm: str) -> dt.datetime:
    h, m = hhmm.split(":")
    return dt.datetime(2024, 3, 1, int(h), int(m))


ORDERS = [("10:00", 100), ("10:10", 101), ("10:20", 102), ("10:25", 103), ("10:40", 104)]
SHIPMENTS = [("10:30", 101), ("10:45", 100), ("10:55", 103), ("11:05", 103), ("11:30", 104)]

# (rowtime, orderId, orderTime), exactly as the seed prints them.
EXPECTED = [
    (t("10:30"), 101, t("10:10")),
    (t("10:45"), 100, t("10:00")),
    (t("10:55"), 103, t("10:25")),
    (t("11:05"), 103, t("10:25")),
    (t("11:30"), 104, t("10:40")),
]


def as_tuples(rows):
    return sorted((r["ROWTIME"], r["orderId"], r["orderTime"]) for r in rows)


def test_replay_over_tables(spark):
    spark.createDataFrame([(t(a), i) for a, i in ORDERS], "rowtime timestamp, orderId int").createOrReplaceTempView(
        "Orders"
    )
    spark.createDataFrame([(t(a), i) for a, i in SHIPMENTS], "rowtime timestamp, orderId int").createOrReplaceTempView(
        "Shipments"
    )
    df = spark.sql(QUERY)
    assert not df.isStreaming
    assert df.columns == ["ROWTIME", "orderId", "orderTime"]
    assert as_tuples(df.collect()) == EXPECTED


@pytest.mark.streaming
def test_stream_in_micro_batches(spark):
    schema = "rowtime timestamp, orderId int"
    inputs = {"Orders": make_stream(spark, "Orders", schema), "Shipments": make_stream(spark, "Shipments", schema)}

    def rows(pairs):
        return [{"rowtime": t(a), "orderId": i} for a, i in pairs]

    batches = [
        {"Orders": rows(ORDERS[:4])},
        {"Orders": rows(ORDERS[4:]), "Shipments": rows(SHIPMENTS[:1])},
        {"Shipments": rows(SHIPMENTS[1:3])},
        {"Shipments": rows(SHIPMENTS[3:4])},
        {"Shipments": rows(SHIPMENTS[4:])},
    ]
    run = run_stream(spark, QUERY, batches, inputs)
    assert as_tuples(run.rows) == EXPECTED
    # A matched row is emitted in the micro-batch that receives the later of its rows.
    assert [as_tuples(b) for b in run.batches] == [
        [],
        [EXPECTED[0]],
        EXPECTED[1:3],
        [EXPECTED[3]],
        [EXPECTED[4]],
    ]
