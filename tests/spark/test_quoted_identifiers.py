"""s-Server writes identifiers in double quotes (`LF."accountNumber"`, `OVER "lastFew"`).

docs/semantics.md §0: in a statement in the streaming dialect a double-quoted name is an identifier
whatever `spark.sql.ansi.doubleQuotedIdentifiers` says; every other statement keeps Spark's rule,
where it is a string unless that option is on."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.corpus_loader import CORPUS_DIR


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 4, 1, 9, 0, 0) + dt.timedelta(seconds=s)


@pytest.fixture
def quoted(spark):
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    spark.createDataFrame(
        [(at(60), 7, 3), (at(60), 8, 5)], "rowtime timestamp, accountNumber int, loginFailureCount int"
    ).createOrReplaceTempView("SuspectLoginFailures")
    spark.createDataFrame(
        [
            (at(10), 7, "isDebit", 10.0),
            (at(30), 7, "isCredit", 20.0),
            (at(59), 8, "isDebit", 5.0),
            (at(-10), 8, "isDebit", 1.0),
        ],
        "rowtime timestamp, accountNumber int, transactionType string, amount double",
    ).createOrReplaceTempView("Transactions")
    yield spark
    spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")


EXPECTED = [(7, 3, "isDebit", 10.0), (8, 5, "isDebit", 5.0)]


@pytest.mark.parametrize(
    "name",
    [
        "seed049_sguide_login_failures.sql",
        "seed050_sguide_last_few.sql",
        "seed055_sguide_login_failures_printed.sql",
        "seed056_sguide_last_few_printed.sql",
    ],
)
def test_seed_queries_with_quoted_identifiers(quoted, name):
    # The seed 004 queries exactly as the shared corpus holds them: the window after the alias, and
    # one quoted named window for both inputs. (60 s, 10 s) and (60 s, 59 s) are within a minute;
    # (60 s, -10 s) is not.
    sql = (CORPUS_DIR / "valid" / name).read_text()
    assert sorted(tuple(r) for r in quoted.sql(sql).collect()) == EXPECTED


def test_named_windows_several_and_mixed_with_window_functions(spark):
    spark.createDataFrame([(at(0), 1), (at(5), 1)], "rowtime timestamp, k int").createOrReplaceTempView("nw_a")
    spark.createDataFrame([(at(3), 1), (at(9), 1)], "rowtime timestamp, k int").createOrReplaceTempView("nw_b")
    sql = (
        "SELECT STREAM ROWTIME, a.rowtime AS at, b.rowtime AS bt, COUNT(*) OVER w_fn AS n "
        "FROM nw_a OVER wa AS a JOIN nw_b OVER wb AS b ON a.k = b.k "
        "WINDOW wa AS (RANGE INTERVAL '4' SECOND PRECEDING), wb AS (RANGE CURRENT ROW), w_fn AS (PARTITION BY a.k)"
    )
    rows = sorted((r.ROWTIME, r.at, r.bt, r.n) for r in spark.sql(sql).collect())
    # a@0 lives [0,4]: meets b@3. a@5 lives [5,9]: meets b@9. The window function's ORDER BY is
    # omitted, so it is the block's ROWTIME (docs/semantics.md §12): COUNT(*) runs over the rows up
    # to each one (Spark's default frame for an ordered window; a stream refuses it, OJ120).
    assert rows == [(at(3), at(0), at(3), 1), (at(9), at(5), at(9), 2)]


@pytest.mark.parametrize("name", ["seed055_sguide_login_failures_printed.sql", "seed056_sguide_last_few_printed.sql"])
def test_seed_queries_as_printed_need_no_option(quoted, name):
    quoted.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")
    sql = (CORPUS_DIR / "valid" / name).read_text()
    assert sorted(tuple(r) for r in quoted.sql(sql).collect()) == EXPECTED


def test_plain_statements_keep_double_quoted_strings(spark):
    row = spark.sql('SELECT "accountNumber" AS label, concat("a", \'b\') AS ab').collect()[0]
    assert (row.label, row.ab) == ("accountNumber", "ab")


def test_the_match_bids_and_asks_view_as_printed_is_created_and_streams(spark, tmp_path):
    """Seed 004's view, DESCRIPTION and all: its description becomes the view's comment, and the
    view reads as the streaming join it names (a ROWS window on asks: replay over tables here)."""
    spark.sql("CREATE DATABASE IF NOT EXISTS SALES")
    spark.createDataFrame(
        [(at(0), "X", 10, 5.0), (at(30), "X", 10, 5.0)], "rowtime timestamp, ticker string, shares int, price double"
    ).write.mode("overwrite").saveAsTable("SALES.BIDS")
    spark.createDataFrame(
        [(at(-5), "X", 10, 5.0), (at(25), "X", 10, 5.0)], "rowtime timestamp, ticker string, shares int, price double"
    ).write.mode("overwrite").saveAsTable("SALES.ASKS")
    try:
        spark.sql((CORPUS_DIR / "valid" / "seed053_sguide_match_bids_asks_printed.sql").read_text())
        comment = [r for r in spark.sql("DESCRIBE TABLE EXTENDED MatchBidsAndAsks").collect() if r[0] == "Comment"]
        assert comment and comment[0][1].startswith("match bids and asks")
        rows = sorted((r.bidTime, r.askTime) for r in spark.sql("SELECT * FROM MatchBidsAndAsks").collect())
        # Each bid meets the latest ask at or before it (ROWS CURRENT ROW) within 10 s: the bid at 0
        # meets the ask at -5; the bid at 30 meets the ask at 25.
        assert rows == [(at(0), at(-5)), (at(30), at(25))]
    finally:
        spark.sql("DROP VIEW IF EXISTS MatchBidsAndAsks")
        spark.sql("DROP TABLE IF EXISTS SALES.BIDS")
        spark.sql("DROP TABLE IF EXISTS SALES.ASKS")
