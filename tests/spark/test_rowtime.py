"""Rowtime resolution (docs/semantics.md §1) and the output ROWTIME column (§4)."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import AnalysisException

from tests.spark.streams import make_stream, run_stream

T0 = dt.datetime(2024, 2, 1, 12, 0, 0)


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def view(spark, name, schema, rows):
    spark.createDataFrame(rows, schema).createOrReplaceTempView(name)


def test_column_named_rowtime_in_any_case(spark):
    view(spark, "rt_a", "RowTime timestamp, k int", [(at(0), 1), (at(10), 2)])
    view(spark, "rt_b", "ROWTIME timestamp, k int", [(at(5), 1), (at(10), 2)])
    rows = spark.sql(
        "SELECT STREAM ROWTIME, a.k FROM rt_a OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS a "
        "JOIN rt_b AS b ON a.k = b.k"
    ).collect()
    assert sorted((r.ROWTIME, r.k) for r in rows) == [(at(5), 1), (at(10), 2)]


def test_order_by_column_wins_over_a_rowtime_column(spark):
    view(spark, "ob_a", "rowtime timestamp, ts timestamp, k int", [(at(100), at(0), 1)])
    view(spark, "ob_b", "rowtime timestamp, ts timestamp, k int", [(at(0), at(3), 1)])
    sql = (
        "SELECT STREAM ROWTIME, a.ROWTIME AS art, b.ROWTIME AS brt FROM ob_a OVER (ORDER BY ts RANGE INTERVAL '5' SECOND PRECEDING) AS a "
        "JOIN ob_b OVER (ORDER BY ts RANGE CURRENT ROW) AS b ON a.k = b.k"
    )
    rows = spark.sql(sql).collect()
    # Matched on ts (0 and 3, within 5 s), not on the rowtime columns (100 and 0). a.ROWTIME is a's
    # rowtime, i.e. its ts column.
    assert [(r.ROWTIME, r.art, r.brt) for r in rows] == [(at(3), at(0), at(3))]


def test_no_rowtime_names_the_input_and_how_to_declare_one(spark):
    view(spark, "nr_a", "created timestamp, k int", [(at(0), 1)])
    view(spark, "nr_b", "rowtime timestamp, k int", [(at(0), 1)])
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT STREAM * FROM nr_a AS orders JOIN nr_b AS s ON orders.k = s.k")
    msg = str(e.value)
    assert "OJ203" in msg and "orders" in msg and "nr_a" in msg
    # Where the input is in the statement: "FROM nr_a" starts at position 21 (0-based, as Spark).
    assert "line 1 pos 21" in msg
    assert "ORDER BY" in msg and "WATERMARK" in msg
    assert e.value.getCondition() == "OVERJOIN_NO_ROWTIME"


def test_rowtime_must_be_a_timestamp(spark):
    view(spark, "nt_a", "rowtime string, k int", [("x", 1)])
    view(spark, "nt_b", "rowtime timestamp, k int", [(at(0), 1)])
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT STREAM * FROM nt_a AS a JOIN nt_b AS b ON a.k = b.k")
    assert "OJ204" in str(e.value) and "STRING" in str(e.value) and "rowtime" in str(e.value)


def test_timestamp_ntz_rowtimes(spark):
    view(spark, "ntz_a", "rowtime timestamp_ntz, k int", [(at(0), 1)])
    view(spark, "ntz_b", "rowtime timestamp_ntz, k int", [(at(2), 1)])
    df = spark.sql(
        "SELECT STREAM ROWTIME, a.k FROM ntz_a OVER (RANGE INTERVAL '2' SECOND PRECEDING) AS a JOIN ntz_b AS b ON a.k = b.k"
    )
    assert dict(df.dtypes)["ROWTIME"] == "timestamp_ntz"
    assert [(r.ROWTIME, r.k) for r in df.collect()] == [(at(2), 1)]


def test_select_star_puts_rowtime_first(spark):
    view(spark, "st_a", "rowtime timestamp, k int", [(at(0), 1)])
    view(spark, "st_b", "rowtime timestamp, k int, v string", [(at(0), 1, "x")])
    df = spark.sql("SELECT STREAM * FROM st_a AS a JOIN st_b AS b ON a.k = b.k")
    assert df.columns == ["ROWTIME", "rowtime", "k", "rowtime", "k", "v"]


@pytest.mark.parametrize(
    ("schema", "sql", "columns"),
    [
        ("ROWTIME timestamp, k int, v string", "SELECT STREAM * FROM one_a", ["ROWTIME", "k", "v"]),
        ("k int, rowtime timestamp, v string", "SELECT STREAM * FROM one_a WHERE k = 1", ["ROWTIME", "k", "v"]),
        ("RowTime timestamp, k int, v string", "SELECT STREAM a.* FROM one_a AS a", ["ROWTIME", "k", "v"]),
        (
            "ROWTIME timestamp, k int, v string",
            "SELECT STREAM * FROM (SELECT STREAM * FROM one_a) AS s",
            ["ROWTIME", "k", "v"],
        ),
        (
            "ROWTIME timestamp, k int, v string",
            "SELECT STREAM ROWTIME, a.ROWTIME AS t, k FROM one_a AS a",
            ["ROWTIME", "t", "k"],
        ),
    ],
)
def test_select_star_of_one_stream_gives_its_rowtime_once(spark, schema, sql, columns):
    """One stream, no join, its rowtime its own ROWTIME column: `*` gives ROWTIME once (a KDA
    stream's `*` does); every ROWTIME it gives is the row's."""
    # Row k has rowtime at(k) and v "v{k}", whatever order the view declares its columns in.
    values = {"rowtime": at, "k": lambda k: k, "v": lambda k: f"v{k}"}
    names = [c.split()[0].lower() for c in schema.split(", ")]
    view(spark, "one_a", schema, [tuple(values[n](k) for n in names) for k in range(4)])
    df = spark.sql(sql)
    assert df.columns == columns
    keys = [1] if "k = 1" in sql else range(4)
    of_column = {"ROWTIME": at, "t": at, "k": lambda k: k, "v": lambda k: f"v{k}"}
    assert sorted(tuple(r) for r in df.collect()) == [tuple(of_column[c](k) for c in columns) for k in keys]


def test_select_star_keeps_a_rowtime_column_that_is_not_the_rowtime(spark):
    """A stream ordered by another column: its ROWTIME column is a value like any other, and `*`
    gives the output ROWTIME (from ts) and that column."""
    view(spark, "one_b", "ts timestamp, ROWTIME timestamp, k int", [(at(5), at(100), 1)])
    df = spark.sql("SELECT STREAM * FROM one_b OVER (ORDER BY ts RANGE INTERVAL '1' SECOND PRECEDING)")
    assert df.columns == ["ROWTIME", "ts", "ROWTIME", "k"]
    assert [tuple(r) for r in df.collect()] == [(at(5), at(5), at(100), 1)]


def test_unqualified_rowtime_in_where_is_the_output_rowtime(spark):
    view(spark, "wh_a", "rowtime timestamp, k int", [(at(0), 1), (at(20), 1)])
    view(spark, "wh_b", "rowtime timestamp, k int", [(at(5), 1), (at(25), 1)])
    rows = spark.sql(
        "SELECT STREAM ROWTIME, a.ROWTIME AS a_t FROM wh_a OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
        "JOIN wh_b AS b ON a.k = b.k WHERE ROWTIME > TIMESTAMP '2024-02-01 12:00:10'"
    ).collect()
    assert [(r.ROWTIME, r.a_t) for r in rows] == [(at(25), at(20))]


@pytest.mark.streaming
def test_watermark_column_is_the_rowtime_of_a_stream(spark):
    schema = "ts timestamp, k int"
    inputs = {
        "wm_a": make_stream(spark, "wm_a", schema, watermark="ts, 0 seconds"),
        "wm_b": make_stream(spark, "wm_b", schema, watermark="ts, 0 seconds"),
    }
    sql = (
        "SELECT STREAM ROWTIME, a.ROWTIME AS a_t, b.ts AS b_t FROM wm_a OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
        "JOIN wm_b AS b ON a.k = b.k"
    )
    batches = [
        {"wm_a": [{"ts": at(0), "k": 1}, {"ts": at(4), "k": 2}]},
        {"wm_b": [{"ts": at(4), "k": 1}]},
        # Equal to the latest rowtime seen: not late (Spark alone would drop it).
        {"wm_b": [{"ts": at(4), "k": 2}]},
        {"wm_a": [{"ts": at(30), "k": 1}], "wm_b": [{"ts": at(30), "k": 9}]},
    ]
    run = run_stream(spark, sql, batches, inputs)
    assert [[(r.ROWTIME, r.a_t, r.b_t) for r in b] for b in run.batches] == [
        [],
        [(at(4), at(0), at(4))],
        [(at(4), at(4), at(4))],
        [],
    ]


def test_views_ctes_subqueries_and_insert_keep_the_streaming_syntax(spark):
    # Spark stores a view's query text: it must be the user's text, OVER clause included.
    view(spark, "vw_a", "rowtime timestamp, k int, id int", [(at(0), 1, 1)])
    view(spark, "vw_b", "rowtime timestamp, k int, id int", [(at(3), 1, 2)])
    block = (
        "SELECT STREAM ROWTIME, a.id AS aid, b.id AS bid FROM vw_a OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS a "
        "JOIN vw_b AS b ON a.k = b.k"
    )
    spark.sql(f"CREATE OR REPLACE TEMP VIEW vw_j AS {block}")
    assert [tuple(r) for r in spark.table("vw_j").collect()] == [(at(3), 1, 2)]
    assert spark.sql(f"WITH x AS ({block}) SELECT count(*) FROM x").collect()[0][0] == 1
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM ({block}) t").collect()] == [(at(3), 1, 2)]
    spark.sql("DROP TABLE IF EXISTS vw_tgt")
    spark.sql("CREATE TABLE vw_tgt (rt timestamp, aid int, bid int) USING parquet")
    spark.sql(f"INSERT INTO vw_tgt {block}")
    assert [tuple(r) for r in spark.table("vw_tgt").collect()] == [(at(3), 1, 2)]
    spark.sql("DROP TABLE vw_tgt")


def test_rowtime_aliased_without_as(spark):
    """`ROWTIME ROWTIME` is ROWTIME named ROWTIME, as `ROWTIME AS ROWTIME` (found by the fuzzer:
    the alias was taken for a second reference, an internal error OJ900)."""
    view(spark, "na_a", "rowtime timestamp, k int", [(at(0), 1)])
    view(spark, "na_b", "rowtime timestamp, k int", [(at(5), 1)])
    rest = " FROM na_a OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a JOIN na_b AS b ON a.k = b.k"
    for select, columns, row in [
        ("ROWTIME ROWTIME, a.ROWTIME a_t", ["ROWTIME", "a_t"], (at(5), at(0))),
        ("ROWTIME AS ROWTIME, a.ROWTIME AS a_t", ["ROWTIME", "a_t"], (at(5), at(0))),
        ("a.ROWTIME ROWTIME", ["ROWTIME"], (at(0),)),
    ]:
        df = spark.sql("SELECT STREAM " + select + rest)
        assert df.columns == columns, select
        assert [tuple(r) for r in df.collect()] == [row], select


def test_a_column_named_stream_after_select_stream(spark):
    """`SELECT STREAM stream rowtime`: the column `stream` named rowtime, as Spark reads
    `SELECT stream rowtime` (found by the fuzzer: an internal error OJ900)."""
    view(spark, "sc_a", "rowtime timestamp, k int, stream string", [(at(0), 1, "s1")])
    view(spark, "sc_b", "rowtime timestamp, k int", [(at(5), 1)])
    df = spark.sql(
        "SELECT STREAM stream rowtime FROM sc_a OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a "
        "JOIN sc_b AS b ON a.k = b.k"
    )
    assert df.columns == ["rowtime"]
    assert [tuple(r) for r in df.collect()] == [("s1",)]


def test_a_plain_select_subquery_passes_its_rowtime_to_the_select_stream_reading_it(spark):
    """KDA's `SELECT STREAM c FROM (SELECT c FROM "S") WHERE ...` (a plain SELECT over a stream, as
    published applications filter a pump's target): the subquery has its FROM's ROWTIME though it
    does not select it (docs/semantics.md §10), over a stream and over a table alike."""
    rows = [{"ROWTIME": at(i), "sym": "abc"[i % 3], "n": i} for i in range(12)]
    src = make_stream(spark, "ps_s", "ROWTIME timestamp, sym string, n int")
    sql = "SELECT STREAM ROWTIME, sym, n FROM (SELECT sym, n FROM {v}) WHERE n > 4"
    run = run_stream(spark, sql.format(v="ps_s"), [{"ps_s": rows[:6]}, {"ps_s": rows[6:]}], {"ps_s": src})
    want = [(at(i), "abc"[i % 3], i) for i in range(5, 12)]
    assert sorted(tuple(r) for r in run.rows) == want
    view(spark, "ps_t", "ROWTIME timestamp, sym string, n int", [tuple(r.values()) for r in rows])
    df = spark.sql(sql.format(v="ps_t"))
    assert df.columns == ["ROWTIME", "sym", "n"]
    assert sorted(tuple(r) for r in df.collect()) == want
    # Without a ROWTIME in its FROM the subquery has none, as before: the input has no rowtime.
    view(spark, "ps_n", "ts timestamp, sym string, n int", [tuple(r.values()) for r in rows])
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT STREAM sym FROM (SELECT sym, n FROM ps_n) WHERE n > 4")
    assert e.value.getCondition() == "OVERJOIN_NO_ROWTIME"
