"""Plain Spark SQL must behave exactly as without overjoin.

Every statement below is parsed by overjoin's parser and by the parser it wraps (Spark's own); the
two plans must be identical. The statements are chosen to tempt a careless parser: window
functions with OVER, named WINDOW clauses, the words OVER/STREAM/WITHIN/ASOF/ROWTIME in strings,
comments and identifiers, a column named `stream`, parameters, DDL, CTEs and subqueries.
"""

from __future__ import annotations

import re

import pytest

PLAIN_SQL = [
    # window functions and named windows for them
    "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS s FROM t",
    "SELECT k, AVG(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t",
    "SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) rn FROM t",
    "SELECT k, LAG(v, 1) OVER w AS prev FROM t WINDOW w AS (PARTITION BY k ORDER BY ts)",
    "SELECT k, MIN(v) OVER w1, MAX(v) OVER w2 FROM t WINDOW w1 AS (ORDER BY ts), w2 AS (PARTITION BY k)",
    "SELECT k, COUNT(*) OVER (ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM t",
    "SELECT k, SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM t",
    "SELECT k, FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM t",
    "SELECT * FROM (SELECT k, RANK() OVER (ORDER BY v) r FROM t) WHERE r <= 3",
    "SELECT k, v FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) = 1",
    # the words overjoin cares about, where they are not overjoin syntax
    "SELECT 'SELECT STREAM * FROM s OVER (RANGE INTERVAL 1 HOUR PRECEDING)' AS text",
    'SELECT "OVER WITHIN ASOF ROWTIME" AS s',
    "SELECT 1 -- SELECT STREAM ROWTIME FROM a OVER w\n",
    "SELECT /* JOIN b WITHIN 5s */ 1",
    "SELECT /* nested /* OVER (RANGE CURRENT ROW) */ comment */ 2",
    "SELECT stream FROM t",
    "SELECT stream, k FROM t",
    "SELECT stream AS s FROM t",
    "SELECT stream.x FROM t",
    "SELECT stream * 2 FROM t",
    "SELECT stream + 1 FROM t",
    "SELECT t.stream FROM t",
    "SELECT `stream` FROM `stream`",
    "SELECT rowtime FROM t",
    "SELECT t.rowtime, ROWTIME FROM t WHERE ROWTIME > TIMESTAMP '2024-01-01 00:00:00'",
    "SELECT `over`, `within`, `asof` FROM t",
    "SELECT within FROM t",
    "SELECT k FROM t AS asof",
    "SELECT k FROM stream",
    "SELECT x.k FROM stream x",
    "SELECT r'OVER\\d' AS raw, X'0A' AS hex",
    "SELECT 'it''s OVER' AS q",
    "SELECT 'back\\'slash OVER' AS q",
    # Spark's own interval joins stay plain Spark SQL
    "SELECT * FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL 1 HOUR AND a.ts",
    "SELECT * FROM a LEFT JOIN b ON a.k = b.k AND b.ts >= a.ts AND b.ts <= a.ts + INTERVAL '10' MINUTE",
    # joins of every kind
    "SELECT * FROM a JOIN b USING (k)",
    "SELECT * FROM a NATURAL JOIN b",
    "SELECT * FROM a LEFT OUTER JOIN b ON a.k = b.k",
    "SELECT * FROM a RIGHT JOIN b ON a.k = b.k",
    "SELECT * FROM a FULL OUTER JOIN b ON a.k = b.k",
    "SELECT * FROM a CROSS JOIN b",
    "SELECT * FROM a, b WHERE a.k = b.k",
    "SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k",
    "SELECT * FROM a LEFT ANTI JOIN b ON a.k = b.k",
    "SELECT * FROM a JOIN b ON LEFT(a.s, 2) = RIGHT(b.s, 2)",
    "SELECT * FROM a JOIN (SELECT k, MAX(v) m FROM b GROUP BY k) bb ON a.k = bb.k",
    # CTEs, subqueries, set operations
    "WITH x AS (SELECT k FROM t), y AS (SELECT k FROM x) SELECT * FROM y",
    "SELECT * FROM t WHERE k IN (SELECT k FROM u WHERE v > 1)",
    "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
    "SELECT k FROM t UNION ALL SELECT k FROM u",
    "SELECT k FROM t INTERSECT SELECT k FROM u EXCEPT SELECT k FROM v",
    "(SELECT k FROM t ORDER BY k LIMIT 3) UNION (SELECT k FROM u)",
    "SELECT k, COUNT(*) FROM t GROUP BY k HAVING COUNT(*) > 1 ORDER BY k LIMIT 10 OFFSET 2",
    "SELECT window(ts, '5 minutes') AS w, COUNT(*) FROM t GROUP BY window(ts, '5 minutes')",
    "SELECT window.start, COUNT(*) FROM t GROUP BY window(ts, '10 minutes', '5 minutes')",
    "SELECT session_window.end, COUNT(*) FROM t GROUP BY k, session_window(ts, '5 minutes')",
    # Spark's ceil and floor, and columns named like Calcite's window functions
    "SELECT ceil(v), CEILING(v, 1), CEIL(2.5), floor(v), FLOOR(v, -1) FROM t",
    "SELECT session, hop, tumble, tumble_end FROM t GROUP BY session, hop, tumble, tumble_end",
    "SELECT * FROM t TABLESAMPLE (10 PERCENT)",
    "SELECT * FROM range(10)",
    "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, name)",
    "SELECT explode(array(1, 2)) AS x",
    "SELECT * FROM t LATERAL VIEW explode(arr) e AS item",
    "SELECT CAST(v AS DECIMAL(10, 2)), v::string, TRY_CAST(v AS INT) FROM t",
    "SELECT CASE WHEN v > 1 THEN 'hi' ELSE 'lo' END FROM t",
    "SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH FROM s) FROM t",
    "SELECT INTERVAL '1:30' MINUTE TO SECOND, INTERVAL 5 SECONDS",
    "SELECT * FROM t WATERMARK ts DELAY OF INTERVAL 10 SECONDS AS tw",
    # DDL, DML and commands
    "CREATE TABLE tt (id INT, ts TIMESTAMP, stream STRING) USING parquet",
    "CREATE OR REPLACE TEMP VIEW vv AS SELECT k, SUM(v) OVER (ORDER BY ts) FROM t",
    "CREATE VIEW v2 AS SELECT * FROM a JOIN b USING (k)",
    "INSERT INTO tt SELECT 1, current_timestamp(), 'OVER'",
    "ALTER TABLE tt ADD COLUMNS (within INT)",
    "DROP TABLE IF EXISTS tt",
    "DESCRIBE TABLE t",
    "SHOW TABLES",
    "EXPLAIN SELECT * FROM t",
    "SET spark.sql.shuffle.partitions = 4",
    "CACHE TABLE t",
    "SELECT 1;",
]


def normalise(plan_string: str) -> str:
    # Each parse gives aliases fresh expression ids: they are the only legitimate difference.
    return re.sub(r"#\d+", "#N", plan_string)


def test_corpus_is_large_enough():
    assert len(PLAIN_SQL) >= 60


@pytest.mark.parametrize("sql", PLAIN_SQL)
def test_plain_sql_parses_exactly_as_spark(spark, sql):
    parser = spark._jsparkSession.sessionState().sqlParser()
    assert parser.getClass().getName() == "io.overjoin.catalyst.parser.OverjoinSqlParser"
    ours = parser.parsePlan(sql)
    spark_own = parser.delegate().parsePlan(sql)
    assert normalise(ours.treeString()) == normalise(spark_own.treeString())
    assert ours.getClass().getName() == spark_own.getClass().getName()


QUERIES = [s for s in PLAIN_SQL if s.lstrip().upper().startswith(("SELECT", "WITH", "("))]


@pytest.mark.parametrize("sql", QUERIES[:25])
def test_plain_sql_queries_parse_as_queries_too(spark, sql):
    parser = spark._jsparkSession.sessionState().sqlParser()
    assert normalise(parser.parseQuery(sql).treeString()) == normalise(parser.delegate().parseQuery(sql).treeString())


def test_plain_sql_syntax_errors_are_spark_errors(spark):
    from pyspark.errors import ParseException

    with pytest.raises(ParseException) as e:
        spark.sql("SELECT * FROM t WHERE k = ")
    assert "PARSE_SYNTAX_ERROR" in str(e.value)
    assert "OVERJOIN" not in str(e.value)


def test_named_parameters(spark):
    rows = spark.sql(
        "SELECT id FROM range(10) WHERE id > :lo AND id < :hi ORDER BY id", args={"lo": 3, "hi": 7}
    ).collect()
    assert [r.id for r in rows] == [4, 5, 6]


def test_positional_parameters(spark):
    rows = spark.sql("SELECT id, ? AS tag FROM range(5) WHERE id >= ? ORDER BY id", args=["OVER", 3]).collect()
    assert [(r.id, r.tag) for r in rows] == [(3, "OVER"), (4, "OVER")]


def test_parameters_in_an_overjoin_query(spark):
    import datetime as dt

    base = dt.datetime(2024, 1, 1, 10, 0)
    spark.createDataFrame([(base, 1), (base, 2)], "rowtime timestamp, k int").createOrReplaceTempView("pa")
    spark.createDataFrame([(base, 1), (base, 2)], "rowtime timestamp, k int").createOrReplaceTempView("pb")
    sql = "SELECT STREAM ROWTIME, a.k, :label AS label FROM pa AS a JOIN pb AS b ON a.k = b.k WHERE a.k > :min"
    rows = spark.sql(sql, args={"label": "a long label value", "min": 1}).collect()
    assert [(r.ROWTIME, r.k, r.label) for r in rows] == [(base, 2, "a long label value")]
    rows = spark.sql(
        "SELECT STREAM ?, ROWTIME, a.k FROM pa AS a JOIN pb OVER (RANGE INTERVAL '1' SECOND PRECEDING) AS b ON a.k = b.k AND a.k = ?",
        args=["x", 1],
    ).collect()
    assert [(r[0], r.ROWTIME, r.k) for r in rows] == [("x", base, 1)]


@pytest.mark.parametrize(
    "rule",
    [
        "ResolveStreamJoinInputs",
        "RewriteWindowedJoins",
        "BindRowtimeReferences",
        "ApplyOrderedEmit",
        "RemoveStreamJoinMarkers",
    ],
)
def test_each_rule_returns_a_plain_plan_as_the_same_instance(spark, rule):
    """Plain SQL pays one tree walk per rule: a plan without overjoin nodes comes back untouched."""
    jvm = spark._jvm
    spark.sql("CREATE OR REPLACE TEMP VIEW pr_t AS SELECT 1 AS k, 2 AS v")
    plans = [
        spark._jsparkSession.sessionState().sqlParser().parsePlan("SELECT k, SUM(v) OVER (ORDER BY k) FROM pr_t"),
        spark.sql("SELECT a.k FROM pr_t a JOIN pr_t b USING (k)")._jdf.queryExecution().analyzed(),
    ]
    module = getattr(getattr(jvm.io.overjoin.catalyst.analysis, f"{rule}$"), "MODULE$")
    for plan in plans:
        out = module.apply(plan)
        assert jvm.System.identityHashCode(out) == jvm.System.identityHashCode(plan)
