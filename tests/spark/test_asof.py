"""ASOF joins over tables (SEMANTICS.md section 6), with RisingWave's published example (seed 003),
which is an exact acceptance case."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import AnalysisException, ParseException


def t(hhmm: str) -> dt.datetime:
    h, m = hhmm.split(":")
    return dt.datetime(2024, 9, 24, int(h), int(m))


PRICES = [("TSLA", "09:30", 250), ("TSLA", "10:30", 252), ("TSLA", "11:30", 255),
          ("AMZN", "09:30", 3300), ("AMZN", "10:30", 3310), ("AMZN", "11:30", 3320),
          ("GOOG", "09:30", 1400), ("GOOG", "10:30", 1410), ("GOOG", "11:30", 1420)]
MARKET = [("TSLA", "09:00", 0.7), ("TSLA", "10:00", 0.8), ("TSLA", "11:00", 0.9),
          ("AMZN", "09:00", 0.6), ("AMZN", "10:00", 0.65), ("AMZN", "11:00", 0.7),
          ("NVDA", "09:00", 0.55), ("NVDA", "10:00", 0.6), ("NVDA", "11:00", 0.65)]

INNER = [("TSLA", t("09:30"), 250, 0.7), ("TSLA", t("10:30"), 252, 0.8), ("TSLA", t("11:30"), 255, 0.9),
         ("AMZN", t("09:30"), 3300, 0.6), ("AMZN", t("10:30"), 3310, 0.65), ("AMZN", t("11:30"), 3320, 0.7)]
LEFT = INNER + [("GOOG", t("09:30"), 1400, None), ("GOOG", t("10:30"), 1410, None), ("GOOG", t("11:30"), 1420, None)]


@pytest.fixture
def tables(spark):
    spark.createDataFrame([(n, t(a), p) for n, a, p in PRICES], "stock_name string, stock_time timestamp, price int") \
        .createOrReplaceTempView("stock_prices")
    spark.createDataFrame([(n, t(a), s) for n, a, s in MARKET], "stock_name string, market_time timestamp, sentiment double") \
        .createOrReplaceTempView("market_data")


SQL = """SELECT sp.stock_name, sp.stock_time, sp.price, md.sentiment
FROM stock_prices sp
ASOF {kind}JOIN market_data md
ON sp.stock_name = md.stock_name
AND md.market_time <= sp.stock_time"""


def test_seed_asof_inner(spark, tables):
    assert sorted(tuple(r) for r in spark.sql(SQL.format(kind="")).collect()) == sorted(INNER)


def test_seed_asof_left(spark, tables):
    assert sorted((tuple(r) for r in spark.sql(SQL.format(kind="LEFT ")).collect()), key=str) == sorted(LEFT, key=str)


def test_asof_direction_either_side_first_and_rowtime(spark, tables):
    # "closest in the allowed direction": with >= the closest later row; either side may come first.
    later = ("SELECT STREAM ROWTIME, sp.stock_time, md.sentiment FROM stock_prices sp ASOF JOIN market_data md "
             "ON sp.stock_name = md.stock_name AND sp.stock_time <= md.market_time")
    rows = sorted(tuple(r) for r in spark.sql(later).collect())
    # TSLA 09:30 -> 10:00 (0.8), 10:30 -> 11:00 (0.9), 11:30 -> none; AMZN likewise. ROWTIME = x.t.
    assert rows == sorted([(t("09:30"), t("09:30"), 0.8), (t("10:30"), t("10:30"), 0.9),
                           (t("09:30"), t("09:30"), 0.65), (t("10:30"), t("10:30"), 0.7)])


def test_asof_ties_go_to_the_latest_arrival(spark):
    spark.createDataFrame([(1, t("10:00"))], "k int, ts timestamp").createOrReplaceTempView("asof_x")
    spark.createDataFrame([(1, t("09:00"), "first"), (1, t("09:00"), "second"), (1, t("08:00"), "older")],
                          "k int, ts timestamp, v string").createOrReplaceTempView("asof_y")
    rows = spark.sql("SELECT y.v FROM asof_x x ASOF JOIN asof_y y ON x.k = y.k AND y.ts <= x.ts").collect()
    assert [r.v for r in rows] == ["second"]


def test_asof_needs_an_equality_and_one_inequality(spark, tables):
    with pytest.raises(ParseException, match="OJ118"):
        spark.sql("SELECT * FROM stock_prices sp ASOF JOIN market_data md ON sp.stock_name = md.stock_name")


def test_asof_on_streams_is_refused_before_it_starts(spark, tmp_path):
    (spark.createDataFrame([("A", t("09:00"))], "k string, ts timestamp").write.mode("overwrite").parquet(str(tmp_path / "x")))
    spark.readStream.schema("k string, ts timestamp").parquet(str(tmp_path / "x")).createOrReplaceTempView("asof_sx")
    spark.createDataFrame([("A", t("08:00"))], "k string, ts timestamp").createOrReplaceTempView("asof_ty")
    with pytest.raises(AnalysisException, match="OJ117"):
        spark.sql("SELECT * FROM asof_sx x ASOF JOIN asof_ty y ON x.k = y.k AND y.ts <= x.ts")
