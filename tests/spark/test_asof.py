"""ASOF joins over tables (docs/semantics.md §6), with RisingWave's published example (seed 003),
which is an exact acceptance case."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException


def t(hhmm: str) -> dt.datetime:
    h, m = hhmm.split(":")
    return dt.datetime(2024, 9, 24, int(h), int(m))


PRICES = [
    ("TSLA", "09:30", 250),
    ("TSLA", "10:30", 252),
    ("TSLA", "11:30", 255),
    ("AMZN", "09:30", 3300),
    ("AMZN", "10:30", 3310),
    ("AMZN", "11:30", 3320),
    ("GOOG", "09:30", 1400),
    ("GOOG", "10:30", 1410),
    ("GOOG", "11:30", 1420),
]
MARKET = [
    ("TSLA", "09:00", 0.7),
    ("TSLA", "10:00", 0.8),
    ("TSLA", "11:00", 0.9),
    ("AMZN", "09:00", 0.6),
    ("AMZN", "10:00", 0.65),
    ("AMZN", "11:00", 0.7),
    ("NVDA", "09:00", 0.55),
    ("NVDA", "10:00", 0.6),
    ("NVDA", "11:00", 0.65),
]

INNER = [
    ("TSLA", t("09:30"), 250, 0.7),
    ("TSLA", t("10:30"), 252, 0.8),
    ("TSLA", t("11:30"), 255, 0.9),
    ("AMZN", t("09:30"), 3300, 0.6),
    ("AMZN", t("10:30"), 3310, 0.65),
    ("AMZN", t("11:30"), 3320, 0.7),
]
LEFT = [*INNER, ("GOOG", t("09:30"), 1400, None), ("GOOG", t("10:30"), 1410, None), ("GOOG", t("11:30"), 1420, None)]


@pytest.fixture
def tables(spark):
    spark.createDataFrame(
        [(n, t(a), p) for n, a, p in PRICES], "stock_name string, stock_time timestamp, price int"
    ).createOrReplaceTempView("stock_prices")
    spark.createDataFrame(
        [(n, t(a), s) for n, a, s in MARKET], "stock_name string, market_time timestamp, sentiment double"
    ).createOrReplaceTempView("market_data")


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
    later = (
        "SELECT STREAM ROWTIME, sp.stock_time, md.sentiment FROM stock_prices sp ASOF JOIN market_data md "
        "ON sp.stock_name = md.stock_name AND sp.stock_time <= md.market_time"
    )
    rows = sorted(tuple(r) for r in spark.sql(later).collect())
    # TSLA 09:30 -> 10:00 (0.8), 10:30 -> 11:00 (0.9), 11:30 -> none; AMZN likewise. ROWTIME = x.t.
    assert rows == sorted(
        [
            (t("09:30"), t("09:30"), 0.8),
            (t("10:30"), t("10:30"), 0.9),
            (t("09:30"), t("09:30"), 0.65),
            (t("10:30"), t("10:30"), 0.7),
        ]
    )


def test_asof_ties_go_to_the_latest_arrival(spark):
    spark.createDataFrame([(1, t("10:00"))], "k int, ts timestamp").createOrReplaceTempView("asof_x")
    spark.createDataFrame(
        [(1, t("09:00"), "first"), (1, t("09:00"), "second"), (1, t("08:00"), "older")], "k int, ts timestamp, v string"
    ).createOrReplaceTempView("asof_y")
    rows = spark.sql("SELECT y.v FROM asof_x x ASOF JOIN asof_y y ON x.k = y.k AND y.ts <= x.ts").collect()
    assert [r.v for r in rows] == ["second"]


def test_asof_needs_an_equality_and_one_inequality(spark, tables):
    with pytest.raises(ParseException, match="OJ118"):
        spark.sql("SELECT * FROM stock_prices sp ASOF JOIN market_data md ON sp.stock_name = md.stock_name")


def test_asof_of_a_table_with_a_stream_is_refused_before_it_starts(spark, tmp_path):
    """A table on the row side: its rows would need a new answer whenever the stream brings a
    closer row, and have no moment at which they are final."""
    (
        spark.createDataFrame([("A", t("09:00"))], "k string, ts timestamp")
        .write.mode("overwrite")
        .parquet(str(tmp_path / "y"))
    )
    spark.readStream.schema("k string, ts timestamp").parquet(str(tmp_path / "y")).createOrReplaceTempView("asof_sy")
    spark.createDataFrame([("A", t("08:00"))], "k string, ts timestamp").createOrReplaceTempView("asof_tx")
    with pytest.raises(AnalysisException, match=r"OJ117.*ASOF_STREAM_WITH_TABLE|ASOF_STREAM_WITH_TABLE"):
        spark.sql("SELECT * FROM asof_tx x ASOF JOIN asof_sy y ON x.k = y.k AND y.ts <= x.ts")


@pytest.mark.streaming
@pytest.mark.parametrize("kind", ["", "LEFT "])
@pytest.mark.parametrize("op", ["<=", "<", ">=", ">"])
def test_asof_of_a_stream_with_a_table_matches_replay(spark, op, kind):
    """Each stream row is answered from the table as the micro-batch reads it (docs/semantics.md
    §5-6): with a table that does not change, the rows of replay, each once, in the batch that
    brings the row. Generated rows, NULL keys and ties on the table's time included."""
    import random

    from tests.spark.streams import make_stream, run_stream

    rng = random.Random(hash((op, kind)) % 1000)
    base = t("09:00")
    keys = ["A", "B", None]
    xs: list[dict[str, Any]] = sorted(
        ({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 60)), "v": i} for i in range(30)),
        key=lambda r: r["ts"],
    )
    ys = [(rng.choice(keys), base + dt.timedelta(seconds=rng.randint(0, 60)), 100 + n) for n in range(25)]
    suffix = f"_{'lt' if '<' in op else 'gt'}{'e' if '=' in op else ''}{'l' if kind else 'i'}"
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF " + kind + "JOIN {y} y ON x.k = y.k AND y.ts " + op + " x.ts"
    # One partition: "ties go to the later row of the table" needs the table's order.
    spark.createDataFrame(ys, "k string, ts timestamp, w int").coalesce(1).createOrReplaceTempView("asof_ty" + suffix)
    spark.createDataFrame(
        [(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int"
    ).createOrReplaceTempView("asof_tx" + suffix)
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x="asof_tx" + suffix, y="asof_ty" + suffix)).collect())
    assert any(r[2] is not None for r in replay)

    inputs = {"asof_sx" + suffix: make_stream(spark, "asof_sx" + suffix, "k string, ts timestamp, v int")}
    batches = [{"asof_sx" + suffix: xs[i : i + 10]} for i in range(0, 30, 10)]
    run = run_stream(spark, sql.format(x="asof_sx" + suffix, y="asof_ty" + suffix), batches, inputs)
    assert sorted(tuple(r) for r in run.rows) == replay
    # Stateless: every row is answered in the batch that brings it (LEFT: every row of it).
    for fed, out in zip(batches, run.batches):
        sent, got = {r["v"] for r in fed["asof_sx" + suffix]}, {r.v for r in out}
        assert got == sent if kind else got <= sent


@pytest.mark.streaming
def test_asof_join_of_two_streams_emits_each_row_once_the_watermark_rules_out_a_closer_one(spark):
    from tests.spark.streams import make_stream, run_stream

    inputs = {
        "asof_p": make_stream(spark, "asof_p", "stock_name string, stock_time timestamp, price int"),
        "asof_m": make_stream(spark, "asof_m", "stock_name string, market_time timestamp, sentiment double"),
    }

    def p(rows):
        return [{"stock_name": n, "stock_time": t(a), "price": v} for n, a, v in rows]

    def m(rows):
        return [{"stock_name": n, "market_time": t(a), "sentiment": v} for n, a, v in rows]

    # The seed's rows in time order, a few per micro-batch, then rows far later to close everything.
    batches = [
        {"asof_m": m([r for r in MARKET if r[1] == "09:00"]), "asof_p": p([r for r in PRICES if r[1] == "09:30"])},
        {"asof_m": m([r for r in MARKET if r[1] == "10:00"]), "asof_p": p([r for r in PRICES if r[1] == "10:30"])},
        {"asof_m": m([r for r in MARKET if r[1] == "11:00"]), "asof_p": p([r for r in PRICES if r[1] == "11:30"])},
        {"asof_m": m([("ZZZ", "23:00", 0.0)]), "asof_p": p([("ZZZ", "23:00", 0)])},
        {"asof_m": m([("ZZZ", "23:30", 0.0)]), "asof_p": p([("ZZZ", "23:30", 0)])},
    ]
    sql = (
        SQL.format(kind="LEFT ")
        .replace("FROM stock_prices sp", "FROM asof_p sp")
        .replace("JOIN market_data md", "JOIN asof_m md")
    )
    run = run_stream(spark, sql, batches, inputs)
    rows = [tuple(r) for r in run.rows if r.stock_name != "ZZZ"]
    assert sorted(rows, key=str) == sorted(LEFT, key=str)
    # A price is emitted only once the watermark has passed its time, never before its batch.
    first = {tuple(r)[1] for r in run.batches[0]}
    assert all(ts < t("10:30") for ts in first)


@pytest.mark.streaming
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("op", ["<=", "<", ">=", ">"])
def test_asof_stream_matches_replay_on_generated_rows(spark, seed, op):
    """The stream's answer, row for row, is replay's (the over-tables rewrite) on the same rows."""
    import random

    from tests.spark.streams import make_stream, run_stream

    rng = random.Random(seed)
    base = t("09:00")
    # NULL keys on both sides: an equality with NULL is never true, so they never match.
    keys = ["A", "B", None]
    xs: list[dict[str, Any]] = sorted(
        ({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 60)), "v": i} for i in range(12)),
        key=lambda r: r["ts"],
    )
    # Distinct times per key on the y side, so "latest arrival" never has to break a tie here.
    ys: list[dict[str, Any]] = sorted(
        (
            {"k": k, "ts": base + dt.timedelta(seconds=s), "w": 100 + n}
            for n, (k, s) in enumerate(sorted({(rng.choice(keys), rng.randint(0, 60)) for _ in range(10)}, key=str))
        ),
        key=lambda r: r["ts"],
    )
    assert any(r["k"] is None for r in xs) or any(r["k"] is None for r in ys)
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF LEFT JOIN {y} y ON x.k = y.k AND y.ts " + op + " x.ts"
    suffix = f"_{seed}_{'lt' if '<' in op else 'gt'}{'e' if '=' in op else ''}"
    spark.createDataFrame(
        [(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int"
    ).createOrReplaceTempView("ax_t" + suffix)
    spark.createDataFrame(
        [(r["k"], r["ts"], r["w"]) for r in ys], "k string, ts timestamp, w int"
    ).createOrReplaceTempView("ay_t" + suffix)
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x="ax_t" + suffix, y="ay_t" + suffix)).collect())

    inputs = {
        "ax_s" + suffix: make_stream(spark, "ax_s" + suffix, "k string, ts timestamp, v int"),
        "ay_s" + suffix: make_stream(spark, "ay_s" + suffix, "k string, ts timestamp, w int"),
    }
    cuts = [base + dt.timedelta(seconds=c) for c in (20, 40, 61)]
    batches, lo = [], None
    for hi in cuts:
        batches.append(
            {
                "ax_s" + suffix: [r for r in xs if (lo is None or r["ts"] > lo) and r["ts"] <= hi],
                "ay_s" + suffix: [r for r in ys if (lo is None or r["ts"] > lo) and r["ts"] <= hi],
            }
        )
        lo = hi
    far = [base + dt.timedelta(hours=5), base + dt.timedelta(hours=6)]
    for f in far:
        batches.append(
            {"ax_s" + suffix: [{"k": "Z", "ts": f, "v": -1}], "ay_s" + suffix: [{"k": "Z", "ts": f, "w": -1}]}
        )
    run = run_stream(spark, sql.format(x="ax_s" + suffix, y="ay_s" + suffix), batches, inputs)
    stream = sorted(tuple(r) for r in run.rows if r.v != -1)
    if op in (">=", ">"):
        # Looking forward, an x with no later y yet cannot know that none will come: the stream
        # keeps it waiting, so only the matched rows are comparable (and those with a NULL key,
        # which can never match and come out at once).
        null_key = {r["v"] for r in xs if r["k"] is None}
        replay = [r for r in replay if r[2] is not None or r[1] in null_key]
    assert stream == replay
    # NULL keys never matched, in replay and in the stream.
    assert all(w is None for _, v, w in stream if v in {r["v"] for r in xs if r["k"] is None})
