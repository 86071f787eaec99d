"""s-Server writes identifiers in double quotes (`LF."accountNumber"`, `OVER "lastFew"`). With
Spark's documented option `spark.sql.ansi.doubleQuotedIdentifiers=true` the seed queries run as
written; window names in double quotes are names either way."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.corpus_loader import CORPUS_DIR


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 4, 1, 9, 0, 0) + dt.timedelta(seconds=s)


@pytest.fixture
def quoted(spark):
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    spark.createDataFrame([(at(60), 7, 3), (at(60), 8, 5)],
                          "rowtime timestamp, accountNumber int, loginFailureCount int") \
        .createOrReplaceTempView("SuspectLoginFailures")
    spark.createDataFrame([(at(10), 7, "isDebit", 10.0), (at(30), 7, "isCredit", 20.0), (at(59), 8, "isDebit", 5.0),
                           (at(-10), 8, "isDebit", 1.0)],
                          "rowtime timestamp, accountNumber int, transactionType string, amount double") \
        .createOrReplaceTempView("Transactions")
    yield spark
    spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")


EXPECTED = [(7, 3, "isDebit", 10.0), (8, 5, "isDebit", 5.0)]


@pytest.mark.parametrize("name", ["seed049_sguide_login_failures.sql", "seed050_sguide_last_few.sql"])
def test_seed_queries_with_quoted_identifiers(quoted, name):
    # The seed 004 queries exactly as the shared corpus holds them: the window after the alias, and
    # one quoted named window for both inputs. (60 s, 10 s) and (60 s, 59 s) are within a minute;
    # (60 s, -10 s) is not.
    sql = (CORPUS_DIR / "valid" / name).read_text()
    assert sorted(tuple(r) for r in quoted.sql(sql).collect()) == EXPECTED


def test_named_windows_several_and_mixed_with_window_functions(spark):
    spark.createDataFrame([(at(0), 1), (at(5), 1)], "rowtime timestamp, k int").createOrReplaceTempView("nw_a")
    spark.createDataFrame([(at(3), 1), (at(9), 1)], "rowtime timestamp, k int").createOrReplaceTempView("nw_b")
    sql = ("SELECT STREAM ROWTIME, a.rowtime AS at, b.rowtime AS bt, COUNT(*) OVER w_fn AS n "
           "FROM nw_a OVER wa AS a JOIN nw_b OVER wb AS b ON a.k = b.k "
           "WINDOW wa AS (RANGE INTERVAL '4' SECOND PRECEDING), wb AS (RANGE CURRENT ROW), w_fn AS (PARTITION BY a.k)")
    rows = sorted((r.ROWTIME, r.at, r.bt, r.n) for r in spark.sql(sql).collect())
    # a@0 lives [0,4]: meets b@3. a@5 lives [5,9]: meets b@9. The window function sees both rows.
    assert rows == [(at(3), at(0), at(3), 2), (at(9), at(5), at(9), 2)]
