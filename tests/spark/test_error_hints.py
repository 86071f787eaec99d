"""Every hint that suggests a fix is tested by applying the fix and running the query.

Each case is a query that fails with an error code and the same query with the fix its hint
suggests. The bad query must fail with that code (in the validator, and in the JVM where the JVM
raises it: some errors need columns only the validator's schemas give, and Spark reports those in
its own words). The fixed query must pass the validator and run, returning the rows worked out by
hand from docs/semantics.md.

Hints that name no fix (OJ001's "check the syntax", OJ900's "report it") have no case. OJ117 and
OJ301 hints that say a feature is planned are tested where the feature lands.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

import overjoin
from tests.spark.streams import make_stream, run_stream

T = dt.datetime(2024, 6, 1, 8, 0, 0)

SCHEMAS = {
    "ha": {"id": "int", "k": "int", "rowtime": "timestamp"},
    "hb": {"id": "int", "k": "int", "rowtime": "timestamp"},
    "hs": {"id": "int", "k": "int", "rowtime": "string"},
}


@dataclass(frozen=True)
class Hint:
    code: str
    bad: str
    fixed: str
    jvm: bool = True  # the JVM raises this code itself
    # The fixed query's rows, worked out by hand from docs/semantics.md §2-6 over the tables of
    # the `tables` fixture; None: the two rows most fixes give (see BOTH).
    rows: tuple[tuple[object, ...], ...] | None = None


def q(
    a_window: str = "OVER (RANGE INTERVAL '10' SECOND PRECEDING)",
    b_window: str = "",
    join: str = "JOIN",
    cond: str = "ON a.k = b.k",
    tail: str = "",
) -> str:
    return f"SELECT STREAM ROWTIME, a.id, b.id FROM ha {a_window} AS a {join} hb {b_window} AS b {cond} {tail}".strip()


def at(seconds: int) -> dt.datetime:
    return T + dt.timedelta(seconds=seconds)


# ha: a1 (k 1, T), a2 (k 2, T+20 s); hb: b11 (k 1, T+5 s), b12 (k 2, T+20 s). With q()'s windows
# (a: RANGE 10 s, life [t, t+10 s]; b: RANGE CURRENT ROW), a1 meets b11 at T+5 s and a2 meets b12
# at T+20 s; every fix that only widens a's window (or keeps it at least 5 s wide) gives the same.
BOTH = ((at(5), 1, 11), (at(20), 2, 12))

CASES = [
    Hint("OJ101", q("OVER (RANGE INTERVAL '1' MONTH PRECEDING)"), q("OVER (RANGE INTERVAL '30' DAY PRECEDING)")),
    Hint("OJ102", q("OVER (RANGE INTERVAL '1' MINUTE FOLLOWING)"), q("OVER (RANGE INTERVAL '1' MINUTE PRECEDING)")),
    Hint("OJ103", q("OVER (RANGE UNBOUNDED PRECEDING)"), q("OVER (RANGE INTERVAL '1' HOUR PRECEDING)")),
    Hint("OJ104", q("OVER (RANGE INTERVAL -'10' SECOND PRECEDING)"), q("OVER (RANGE INTERVAL '10' SECOND PRECEDING)")),
    Hint(
        "OJ105",
        q("OVER (RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND INTERVAL '10' SECOND PRECEDING)"),
        q("OVER (RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND INTERVAL '1' SECOND PRECEDING)"),
        rows=((at(5), 1, 11),),
    ),
    Hint(
        "OJ106",
        q("OVER (RANGE INTERVAL '1:99' MINUTE TO SECOND PRECEDING)"),
        q("OVER (RANGE INTERVAL '1:30' MINUTE TO SECOND PRECEDING)"),
    ),
    Hint("OJ107", q("OVER w"), q("OVER w", tail="WINDOW w AS (RANGE INTERVAL '1' MINUTE PRECEDING)")),
    Hint("OJ108", q("OVER (PARTITION BY k)"), q("OVER (PARTITION BY k RANGE INTERVAL '10' SECOND PRECEDING)")),
    Hint(
        "OJ109",
        q("OVER (ORDER BY rowtime, id RANGE INTERVAL '10' SECOND PRECEDING)"),
        q("OVER (ORDER BY rowtime RANGE INTERVAL '10' SECOND PRECEDING)"),
    ),
    Hint("OJ110", q(join="CROSS JOIN"), q(join="INNER JOIN")),
    Hint("OJ111", q(tail="WITHIN 5s"), q(a_window="", tail="WITHIN 5s")),
    Hint(
        "OJ113",
        q("OVER w", "OVER w", tail="WINDOW w AS (RANGE CURRENT ROW), w AS (RANGE INTERVAL '5' SECOND PRECEDING)"),
        q("OVER w", "OVER w2", tail="WINDOW w AS (RANGE CURRENT ROW), w2 AS (RANGE INTERVAL '5' SECOND PRECEDING)"),
        rows=((at(20), 2, 12),),
    ),
    Hint("OJ114", q(a_window="", tail="WITHIN 5sec"), q(a_window="", tail="WITHIN 5s")),
    Hint(
        "OJ115",
        q("OVER (RANGE INTERVAL '10' SECOND(12) PRECEDING)"),
        q("OVER (RANGE INTERVAL '10' SECOND(3) PRECEDING)"),
    ),
    Hint(
        "OJ117",
        q("OVER (ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING)"),
        q("OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"),
    ),
    Hint(
        "OJ118",
        "SELECT a.id, b.id FROM ha AS a ASOF JOIN hb AS b ON a.k = b.k",
        "SELECT a.id, b.id FROM ha AS a ASOF JOIN hb AS b ON a.k = b.k AND b.rowtime <= a.rowtime",
        rows=((2, 12),),
    ),
    Hint(
        "OJ119",
        "SELECT STREAM ROWTIME, a.id, t.id FROM ha AS a JOIN hb OVER t ON a.k = t.k "
        "WINDOW t AS (RANGE INTERVAL '1' MINUTE PRECEDING)",
        "SELECT STREAM ROWTIME, a.id, t.id FROM ha AS a JOIN hb OVER t AS t ON a.k = t.k "
        "WINDOW t AS (RANGE INTERVAL '1' MINUTE PRECEDING)",
        rows=((at(20), 2, 12),),
    ),
    Hint("OJ201", q(cond="USING (id2)"), q(cond="USING (k)"), jvm=False),
    Hint(
        "OJ202",
        "SELECT STREAM ROWTIME FROM ha AS a NATURAL JOIN (SELECT id AS bid, rowtime FROM hb) AS s",
        "SELECT STREAM ROWTIME FROM ha AS a JOIN (SELECT id AS bid, k AS bk, rowtime FROM hb) AS s ON a.k = s.bk",
        rows=((at(20),),),
    ),
    Hint(
        "OJ204",
        q(b_window="OVER (RANGE CURRENT ROW)").replace("JOIN hb", "JOIN hs"),
        q(b_window="OVER (RANGE CURRENT ROW)").replace(
            "JOIN hb", "JOIN (SELECT id, k, CAST(rowtime AS TIMESTAMP) AS ROWTIME FROM hs)"
        ),
        rows=((at(5), 1, 21),),
    ),
    Hint("OJ205", q().replace("a.id, b.id", "a.id, id"), q(), jvm=False),
    Hint("OJ206", q(cond="USING (k, rowtime)"), q(cond="USING (k)")),
]


@pytest.fixture(scope="module")
def tables(spark):
    spark.createDataFrame(
        [(1, 1, T), (2, 2, T + dt.timedelta(seconds=20))], "id int, k int, rowtime timestamp"
    ).createOrReplaceTempView("ha")
    spark.createDataFrame(
        [(11, 1, T + dt.timedelta(seconds=5)), (12, 2, T + dt.timedelta(seconds=20))],
        "id int, k int, rowtime timestamp",
    ).createOrReplaceTempView("hb")
    spark.createDataFrame([(21, 1, "2024-06-01 08:00:05")], "id int, k int, rowtime string").createOrReplaceTempView(
        "hs"
    )
    return spark


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.code)
def test_applying_the_hint_fixes_the_query(tables, case):
    from pyspark.errors import AnalysisException, ParseException

    bad = [d for d in overjoin.validate(case.bad, SCHEMAS) if d.severity == "error"]
    assert bad and bad[0].code == case.code, [d.render(case.bad) for d in bad]
    assert bad[0].hint, "the error has no hint"
    if case.jvm:
        with pytest.raises((AnalysisException, ParseException), match=case.code):
            tables.sql(case.bad).collect()
    assert [d for d in overjoin.validate(case.fixed, SCHEMAS) if d.severity == "error"] == []
    expected = BOTH if case.rows is None else case.rows
    assert sorted(tuple(r) for r in tables.sql(case.fixed).collect()) == sorted(expected), case.fixed


# OJ203's hint names four ways to give a stream input a rowtime: each is applied to the same
# stream join and must give the same rows.
NO_ROWTIME = "SELECT STREAM ROWTIME, a.id AS aid, b.id AS bid FROM {a} JOIN {b} ON a.k = b.k"
ROWTIME_FIXES = {
    "ORDER BY in the window": (
        "{va} OVER (ORDER BY ts RANGE INTERVAL '10' SECOND PRECEDING) AS a",
        "{vb} OVER (ORDER BY ts RANGE CURRENT ROW) AS b",
    ),
    "WATERMARK clause": (
        "{va} WATERMARK ts DELAY OF INTERVAL 0 SECONDS OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a",
        "{vb} WATERMARK ts DELAY OF INTERVAL 0 SECONDS AS b",
    ),
    "withWatermark": ("{va}_wm OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a", "{vb}_wm AS b"),
    "a column named ROWTIME": (
        "(SELECT *, ts AS ROWTIME FROM {va}) OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a",
        "(SELECT *, ts AS ROWTIME FROM {vb}) AS b",
    ),
}


@pytest.mark.streaming
@pytest.mark.parametrize("fix", list(ROWTIME_FIXES))
def test_each_rowtime_fix_of_oj203(spark, fix):
    from pyspark.errors import AnalysisException

    schema = "id INT, k INT, ts TIMESTAMP"
    # Names from the fix's position, the same in every run (hash() of a str changes per process).
    n = list(ROWTIME_FIXES).index(fix)
    va, vb = f"nort_a_{n}", f"nort_b_{n}"
    inputs = {va: make_stream(spark, va, schema), vb: make_stream(spark, vb, schema)}
    for v in (va, vb):
        spark.readStream.schema(schema).json(inputs[v].folder).withWatermark("ts", "0 seconds").createOrReplaceTempView(
            v + "_wm"
        )
    with pytest.raises(AnalysisException, match="OJ203") as failure:
        spark.sql(NO_ROWTIME.format(a=f"{va} OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS a", b=f"{vb} AS b"))
    assert "WATERMARK" in str(failure.value) and "ROWTIME" in str(failure.value)
    a, b = (s.format(va=va, vb=vb) for s in ROWTIME_FIXES[fix])
    batches = [
        {va: [{"id": 1, "k": 1, "ts": T}], vb: [{"id": 11, "k": 1, "ts": T + dt.timedelta(seconds=5)}]},
        {
            va: [{"id": 2, "k": 1, "ts": T + dt.timedelta(seconds=60)}],
            vb: [{"id": 12, "k": 1, "ts": T + dt.timedelta(seconds=61)}],
        },
    ]
    run = run_stream(spark, NO_ROWTIME.format(a=a, b=b), batches, inputs)
    # a@0 lives [0, 10]: it meets b@5. a@60 lives [60, 70]: it meets b@61.
    assert sorted(tuple(r) for r in run.rows) == [
        (T + dt.timedelta(seconds=5), 1, 11),
        (T + dt.timedelta(seconds=61), 2, 12),
    ]


@pytest.mark.streaming
def test_oj207_a_view_that_leaves_out_rowtime_and_its_fix(spark):
    """A view of a plain SELECT whose select list leaves out the ROWTIME of the stream it reads,
    read by a block that needs it: OJ207 names the view and the fix (select ROWTIME in it); the
    view with ROWTIME selected gives each row the ROWTIME of its input row. (A view of a SELECT
    STREAM query has one without naming it: test_subquery_rowtime.py.)"""
    from pyspark.errors import AnalysisException

    src = make_stream(spark, "oj207_src", "ROWTIME TIMESTAMP, k STRING, v INT")
    spark.sql("CREATE OR REPLACE TEMP VIEW oj207_view AS SELECT k, v FROM oj207_src WHERE v > 0")
    query = 'SELECT STREAM ROWTIME, "k", "v" FROM "oj207_view"'
    with pytest.raises(AnalysisException, match="OJ207") as failure:
        spark.sql(query)
    said = str(failure.value)
    assert "the view oj207_view" in said and "CREATE OR REPLACE VIEW oj207_view AS SELECT STREAM ROWTIME" in said
    spark.sql(
        'CREATE OR REPLACE TEMP VIEW "oj207_view" AS SELECT STREAM ROWTIME, "k", "v" FROM "oj207_src" WHERE "v" > 0'
    )
    rows = [
        {"ROWTIME": T + dt.timedelta(seconds=s), "k": k, "v": v} for s, k, v in [(1, "a", 3), (2, "b", 0), (4, "a", 5)]
    ]
    run = run_stream(spark, query, [{"oj207_src": rows}], {"oj207_src": src})
    assert sorted(tuple(r) for r in run.rows) == [
        (T + dt.timedelta(seconds=1), "a", 3),
        (T + dt.timedelta(seconds=4), "a", 5),
    ]
