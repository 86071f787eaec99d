"""A stream joined with a table (docs/semantics.md §5): no window on the table, ROWTIME of the
stream row, and only the outer joins a stream can answer."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import AnalysisException

from tests.spark.streams import make_stream, run_stream


def at(s: int) -> dt.datetime:
    return dt.datetime(2023, 6, 18, 10, 0) + dt.timedelta(seconds=s)


@pytest.fixture
def products(spark):
    spark.createDataFrame(
        [(101, "Product A", 25), (102, "Product B", 15)], "id int, product_name string, price int"
    ).createOrReplaceTempView("products")


@pytest.mark.streaming
def test_stream_inner_and_left_join_with_a_table(spark, products):
    sales = make_stream(spark, "sales_s", "rowtime timestamp, transaction_id int, product_id int")
    sql = (
        "SELECT STREAM ROWTIME, s.transaction_id, p.product_name FROM sales_s AS s "
        "LEFT JOIN products AS p ON s.product_id = p.id"
    )
    batches = [
        {"sales_s": [{"rowtime": at(0), "transaction_id": 1, "product_id": 101}]},
        {
            "sales_s": [
                {"rowtime": at(5), "transaction_id": 2, "product_id": 999},
                {"rowtime": at(6), "transaction_id": 3, "product_id": 102},
            ]
        },
    ]
    run = run_stream(spark, sql, batches, {"sales_s": sales})
    # Each stream row meets the table when it is processed, at once, with its own rowtime.
    assert [sorted(tuple(r) for r in b) for b in run.batches] == [
        [(at(0), 1, "Product A")],
        [(at(5), 2, None), (at(6), 3, "Product B")],
    ]


@pytest.mark.streaming
def test_outer_join_that_must_remember_table_rows_is_an_error(spark, products):
    make_stream(spark, "sales_x", "rowtime timestamp, transaction_id int, product_id int")
    for sql in [
        "SELECT STREAM * FROM sales_x AS s RIGHT JOIN products AS p ON s.product_id = p.id",
        "SELECT STREAM * FROM products AS p LEFT JOIN sales_x AS s ON s.product_id = p.id",
        "SELECT STREAM * FROM sales_x AS s FULL JOIN products AS p ON s.product_id = p.id",
    ]:
        with pytest.raises(AnalysisException, match="OJ302"):
            spark.sql(sql)
    # The mirror image is fine: the outer side is the stream.
    assert spark.sql("SELECT STREAM * FROM products AS p RIGHT JOIN sales_x AS s ON s.product_id = p.id").isStreaming


@pytest.mark.streaming
def test_a_window_on_a_table_is_an_error(spark, products):
    make_stream(spark, "sales_w", "rowtime timestamp, transaction_id int, product_id int")
    with pytest.raises(AnalysisException, match="OJ112"):
        spark.sql(
            "SELECT STREAM * FROM sales_w AS s JOIN products OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS p "
            "ON s.product_id = p.id"
        )


LOOKUP = (
    "SELECT STREAM ROWTIME, transaction_id, product_id, product_name, price FROM {sales} AS s "
    "{kind} JOIN products FOR SYSTEM_TIME AS OF PROCTIME() AS p ON s.product_id = p.id"
)


def test_lookup_join_replay(spark, products):
    # RisingWave's process-time temporal join (seed 003) is a join with a table: no window, and
    # each row keeps its own rowtime, even when every input is a table.
    spark.createDataFrame(
        [(at(0), 1, 101), (at(60), 2, 102), (at(120), 3, 999)], "rowtime timestamp, transaction_id int, product_id int"
    ).createOrReplaceTempView("sales_t")
    rows = sorted(tuple(r) for r in spark.sql(LOOKUP.format(sales="sales_t", kind="LEFT")).collect())
    assert rows == [(at(0), 1, 101, "Product A", 25), (at(60), 2, 102, "Product B", 15), (at(120), 3, 999, None, None)]
    rows = sorted(tuple(r) for r in spark.sql(LOOKUP.format(sales="sales_t", kind="")).collect())
    assert rows == [(at(0), 1, 101, "Product A", 25), (at(60), 2, 102, "Product B", 15)]


@pytest.mark.streaming
def test_lookup_join_stream(spark, products):
    sales = make_stream(spark, "sales_l", "rowtime timestamp, transaction_id int, product_id int")
    batches = [
        {"sales_l": [{"rowtime": at(0), "transaction_id": 1, "product_id": 101}]},
        {"sales_l": [{"rowtime": at(9), "transaction_id": 2, "product_id": 102}]},
    ]
    run = run_stream(spark, LOOKUP.format(sales="sales_l", kind=""), batches, {"sales_l": sales})
    assert [[tuple(r) for r in b] for b in run.batches] == [
        [(at(0), 1, 101, "Product A", 25)],
        [(at(9), 2, 102, "Product B", 15)],
    ]
