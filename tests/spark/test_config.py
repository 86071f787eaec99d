"""spark.overjoin.* settings: checked when set, listed by SET -v, and what each one does."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.spark.streams import make_stream, run_stream, setting

Q = (
    "SELECT STREAM ROWTIME, a.id AS aid, b.id AS bid FROM {a} OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
    "JOIN {b} AS b ON a.k = b.k"
)


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 7, 1) + dt.timedelta(seconds=s)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("spark.overjoin.emit", "sometimes", "unordered"),
        ("spark.overjoin.lateness", "soon", "non-negative interval"),
        ("spark.overjoin.lateness", "-5 seconds", "non-negative interval"),
        ("spark.overjoin.lateness", "1 month", "fixed"),
        ("spark.overjoin.parser.enabled", "perhaps", "boolean"),
    ],
)
def test_a_bad_setting_fails_at_set_time_and_names_itself(spark, key, value, expected):
    with pytest.raises(Exception, match=expected) as failure:
        spark.sql(f"SET {key} = {value}")
    assert key in str(failure.value)
    assert spark.conf.get(key) != value


def test_settings_are_listed_with_their_docs(spark):
    rows = {r.key: r for r in spark.sql("SET -v").collect() if r.key.startswith("spark.overjoin.")}
    assert set(rows) >= {"spark.overjoin.lateness", "spark.overjoin.emit", "spark.overjoin.parser.enabled"}
    assert rows["spark.overjoin.lateness"].value == "0 seconds"
    assert "late" in rows["spark.overjoin.lateness"].meaning
    assert rows["spark.overjoin.emit"].value == "unordered"


def test_the_parser_switch_hands_every_statement_to_spark(spark):
    spark.createDataFrame([(at(0), 1, 1)], "rowtime timestamp, k int, id int").createOrReplaceTempView("ps_a")
    sql = Q.format(a="ps_a", b="ps_a")
    assert spark.sql(sql).count() == 1
    from pyspark.errors import ParseException

    with setting(spark, "spark.overjoin.parser.enabled", "false"), pytest.raises(ParseException) as failure:
        spark.sql(sql)
    assert "OJ" not in str(failure.value)  # Spark's own syntax error: overjoin did not read it
    assert spark.sql("SELECT 1 AS one").collect()[0].one == 1
    assert spark.sql(sql).count() == 1


def test_ordered_emit_sorts_replay_by_rowtime(spark):
    spark.createDataFrame(
        [(at(30), 1, 1), (at(0), 2, 2), (at(10), 3, 3)], "rowtime timestamp, k int, id int"
    ).createOrReplaceTempView("or_a")
    with setting(spark, "spark.overjoin.emit", "ordered"):
        rows = spark.sql(Q.format(a="or_a", b="or_a")).collect()
    assert [r.ROWTIME for r in rows] == [at(0), at(10), at(30)]


@pytest.mark.streaming
def test_ordered_emit_releases_rows_in_rowtime_order_once_the_watermark_passes(spark):
    # LEFT join: matched rows come out at once in the default mode, null-padded ones only after
    # their window closed, so the default order is not ROWTIME order. Ordered mode holds rows
    # until the watermark passes them and releases them sorted.
    inputs = {
        "oe_a": make_stream(spark, "oe_a", "rowtime timestamp, k int, id int"),
        "oe_b": make_stream(spark, "oe_b", "rowtime timestamp, k int, id int"),
    }
    sql = (
        "SELECT STREAM ROWTIME, a.id AS aid, b.id AS bid FROM oe_a OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
        "LEFT JOIN oe_b AS b ON a.k = b.k"
    )
    batches = [
        {
            "oe_a": [{"rowtime": at(0), "k": 1, "id": 1}, {"rowtime": at(2), "k": 2, "id": 2}],
            "oe_b": [{"rowtime": at(5), "k": 1, "id": 10}],
        },
        {"oe_a": [{"rowtime": at(20), "k": 3, "id": 3}], "oe_b": [{"rowtime": at(20), "k": 3, "id": 11}]},
        {"oe_a": [{"rowtime": at(40), "k": 9, "id": 4}], "oe_b": [{"rowtime": at(40), "k": 8, "id": 12}]},
    ]
    with setting(spark, "spark.overjoin.emit", "ordered"):
        run = run_stream(spark, sql, batches, inputs)
    got = [(r.ROWTIME, r.aid, r.bid) for r in run.rows]
    # (5 s, 1, 10) matched; (12 s, 2, NULL) padded at 2 + 10 s; (20 s, 3, 11) matched.
    assert got == [(at(5), 1, 10), (at(12), 2, None), (at(20), 3, 11)]
    assert got == sorted(got, key=lambda r: r[0])
    # Nothing was released before the watermark had passed it: the 5 s match and the 12 s padded row
    # once the watermark reached 20 s (the padded row leaves the join in that batch), the 20 s match
    # waited for 40 s.
    assert [len(b) for b in run.batches] == [0, 2, 1]


@pytest.mark.streaming
def test_lateness_keeps_rows_that_would_otherwise_be_late(spark):
    with setting(spark, "spark.overjoin.lateness", "30 seconds"):
        inputs = {
            "lt_a": make_stream(spark, "lt_a", "rowtime timestamp, k int, id int"),
            "lt_b": make_stream(spark, "lt_b", "rowtime timestamp, k int, id int"),
        }
        batches = [
            {"lt_a": [{"rowtime": at(100), "k": 1, "id": 1}], "lt_b": [{"rowtime": at(100), "k": 1, "id": 2}]},
            # 20 s behind the latest rowtime: within the 30 s lateness, so joined, not dropped.
            {"lt_a": [{"rowtime": at(80), "k": 2, "id": 3}], "lt_b": [{"rowtime": at(85), "k": 2, "id": 4}]},
        ]
        run = run_stream(spark, Q.format(a="lt_a", b="lt_b"), batches, inputs)
        assert [sorted(tuple(r) for r in b) for b in run.batches] == [[(at(100), 1, 2)], [(at(85), 3, 4)]]
