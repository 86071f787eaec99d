"""ASOF joins over tables (docs/semantics.md §6), with RisingWave's published example (seed 003),
which is an exact acceptance case."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.reference_model import ASOF_OPS as OPS
from tests.reference_model import Input, asof, asof_streamed, sort_key


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


def _model(xs, ys, op: str, kind: str) -> list[tuple[Any, ...]]:
    """The reference model's (ROWTIME, x.v, y.w) for ``x ASOF [LEFT] JOIN y ON x.k = y.k AND y.ts
    op x.ts`` over rows in arrival order (docs/semantics.md §6; tests/reference_model.py)."""
    out = asof(Input("x", xs, "ts"), Input("y", ys, "ts"), [("k", "k")], op, kind)
    return sorted(_tuples(out), key=sort_key)


def _tuples(out) -> list[tuple[Any, ...]]:
    return [(o.rowtime, o.rows["x"]["v"], None if o.rows["y"] is None else o.rows["y"]["w"]) for o in out]


# A seed per (op, join type) of the stream-with-table test, fixed so that a failure can be rerun.
TABLE_SEEDS = {(op, kind): 400 + 2 * i + (kind == "LEFT ") for i, op in enumerate(OPS) for kind in ("", "LEFT ")}


@pytest.mark.streaming
@pytest.mark.parametrize("kind", ["", "LEFT "])
@pytest.mark.parametrize("op", OPS)
def test_asof_of_a_stream_with_a_table_matches_the_model(spark, op, kind):
    """Each stream row is answered from the table as the micro-batch reads it (docs/semantics.md
    §5-6): with a table that does not change, the reference model's rows, each once, in the batch
    that brings the row; replay gives the same rows. Generated rows, NULL keys, NULL times and
    ties on the table's time included (ties go to the later row of the table)."""
    import random

    from tests.spark.streams import make_stream, run_stream

    seed = TABLE_SEEDS[(op, kind)]
    rng = random.Random(seed)
    base = t("09:00")
    keys = ["A", "B", None]
    xs: list[dict[str, Any]] = sorted(
        ({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 60)), "v": i} for i in range(30)),
        key=lambda r: r["ts"],
    )
    ys = [
        {"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 60)), "w": 100 + n} for n in range(25)
    ]
    # Ties on the table's time, each with an earlier row of the same key and time: the later wins.
    ys += [{**rng.choice([y for y in ys if y["k"] is not None]), "w": 200 + n} for n in range(4)]
    # NULL times: a stream row without rowtime is in no window, never emitted, not even by LEFT
    # (docs/semantics.md §1); a table row without one never compares true.
    xs.insert(rng.randint(0, len(xs)), {"k": "A", "ts": None, "v": 30})
    ys.insert(rng.randint(0, len(ys)), {"k": "A", "ts": None, "w": 300})
    expected = _model(xs, ys, op, "LEFT" if kind else "INNER")
    why = f"seed {seed}, y.ts {op} x.ts, {kind or 'INNER '}ASOF"
    # The cases hold what they are meant to: matched rows, ties among the chosen y's times, and
    # for LEFT rows without a match.
    assert any(r[2] is not None for r in expected), why
    assert any(r[2] is not None and r[2] >= 200 for r in expected), why
    if kind:
        assert any(r[2] is None for r in expected), why
    suffix = f"_{'lt' if '<' in op else 'gt'}{'e' if '=' in op else ''}{'l' if kind else 'i'}"
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF " + kind + "JOIN {y} y ON x.k = y.k AND y.ts " + op + " x.ts"
    # One partition: "ties go to the later row of the table" needs the table's order.
    spark.createDataFrame([(r["k"], r["ts"], r["w"]) for r in ys], "k string, ts timestamp, w int").coalesce(
        1
    ).createOrReplaceTempView("asof_ty" + suffix)
    spark.createDataFrame(
        [(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int"
    ).createOrReplaceTempView("asof_tx" + suffix)
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x="asof_tx" + suffix, y="asof_ty" + suffix)).collect())
    assert replay == expected, why

    inputs = {"asof_sx" + suffix: make_stream(spark, "asof_sx" + suffix, "k string, ts timestamp, v int")}
    batches = [{"asof_sx" + suffix: xs[i : i + 11]} for i in range(0, 31, 11)]
    run = run_stream(spark, sql.format(x="asof_sx" + suffix, y="asof_ty" + suffix), batches, inputs)
    # Stateless: every row is answered in the batch that brings it, with the model's answer.
    for n, (fed, out) in enumerate(zip(batches, run.batches)):
        sent = {r["v"] for r in fed["asof_sx" + suffix]}
        assert sorted((tuple(r) for r in out), key=sort_key) == [r for r in expected if r[1] in sent], (
            f"{why}, batch {n}"
        )


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
    # A price is emitted once the watermark (the smaller of the two inputs' latest times, no
    # lateness) has reached its time: none in the first micro-batch (watermark 09:00), the 09:30
    # prices in the second (10:00), the 10:30 ones in the third (11:00), the 11:30 ones in the fourth.
    stock_times = [sorted(r.stock_time for r in out if r.stock_name != "ZZZ") for out in run.batches]
    assert stock_times == [[], [t("09:30")] * 3, [t("10:30")] * 3, [t("11:30")] * 3, []]


@pytest.mark.streaming
@pytest.mark.parametrize(("seed", "kind"), [(1, "LEFT"), (2, "INNER")])
@pytest.mark.parametrize("op", OPS)
def test_asof_stream_and_replay_match_the_model_on_generated_rows(spark, seed, kind, op):
    """Replay returns the reference model's rows, and the stream the rows the model says it has
    emitted once the watermark is past the data (docs/semantics.md §6), unmatched rows included:
    looking forward, an ``ASOF LEFT`` never emits the NULL row of an x whose key has no later y,
    and the model says so too (``asof_streamed``)."""
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
    # Distinct times per key on the y side: within a micro-batch a stream read in parallel has no
    # arrival order (docs/semantics.md §3), so "latest arrival" must not have to break a tie here.
    ys: list[dict[str, Any]] = sorted(
        (
            {"k": k, "ts": base + dt.timedelta(seconds=s), "w": 100 + n}
            for n, (k, s) in enumerate(sorted({(rng.choice(keys), rng.randint(0, 60)) for _ in range(10)}, key=str))
        ),
        key=lambda r: r["ts"],
    )
    why = f"seed {seed}, y.ts {op} x.ts, {kind} ASOF"
    assert any(r["k"] is None for r in xs) or any(r["k"] is None for r in ys), why
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF " + ("LEFT " if kind == "LEFT" else "") + "JOIN {y} y"
    sql += " ON x.k = y.k AND y.ts " + op + " x.ts"
    suffix = f"_{seed}_{'lt' if '<' in op else 'gt'}{'e' if '=' in op else ''}"
    spark.createDataFrame(
        [(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int"
    ).createOrReplaceTempView("ax_t" + suffix)
    spark.createDataFrame(
        [(r["k"], r["ts"], r["w"]) for r in ys], "k string, ts timestamp, w int"
    ).createOrReplaceTempView("ay_t" + suffix)
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x="ax_t" + suffix, y="ay_t" + suffix)).collect())
    assert replay == _model(xs, ys, op, kind), why

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
    # The flush rows (key Z, no x of the data has it) move the watermark to 05:00 (then 06:00).
    streamed = asof_streamed(Input("x", xs, "ts"), Input("y", ys, "ts"), [("k", "k")], op, kind, watermark=far[0])
    assert stream == sorted(_tuples(streamed), key=sort_key), why
