"""overjoin's syntax errors: real ParseExceptions with a stable code and the user's position."""

from __future__ import annotations

import pytest
from pyspark.errors import ParseException

BASE = "SELECT STREAM * FROM a OVER ({w}) AS x JOIN b ON x.k = b.k"

# (window text, expected code, the text the error must point at)
WINDOW_ERRORS = [
    ("RANGE INTERVAL '1' MONTH PRECEDING", "OJ101", "MONTH"),
    ("RANGE INTERVAL '2' YEAR PRECEDING", "OJ101", "YEAR"),
    ("RANGE INTERVAL '1' MINUTE FOLLOWING", "OJ102", "FOLLOWING"),
    ("RANGE UNBOUNDED PRECEDING", "OJ103", "UNBOUNDED"),
    ("RANGE INTERVAL -'1' MINUTE PRECEDING", "OJ104", "INTERVAL"),
    ("RANGE INTERVAL '-1' MINUTE PRECEDING", "OJ104", "INTERVAL"),
    ("ROWS -3 PRECEDING", "OJ104", "-3"),
    ("RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND INTERVAL '2' MINUTE PRECEDING", "OJ105", "BETWEEN"),
    ("RANGE BETWEEN CURRENT ROW AND INTERVAL '2' MINUTE PRECEDING", "OJ105", "BETWEEN"),
    ("RANGE INTERVAL 'x' SECOND PRECEDING", "OJ106", "'x'"),
    ("RANGE INTERVAL '1:60' MINUTE TO SECOND PRECEDING", "OJ106", "'1:60'"),
    ("RANGE INTERVAL '1:2:3' MINUTE TO SECOND PRECEDING", "OJ106", "'1:2:3'"),
    ("PARTITION BY k", "OJ108", "PARTITION"),
    ("ORDER BY ts + 1 RANGE CURRENT ROW", "OJ109", "ts"),
    ("RANGE INTERVAL '1' SECOND(12) PRECEDING", "OJ115", "12"),
    ("RANGE INTERVAL '1' FORTNIGHT PRECEDING", "OJ001", "FORTNIGHT"),
]


@pytest.mark.parametrize(("window", "code", "at"), WINDOW_ERRORS)
def test_window_errors_point_at_the_offending_text(spark, window, code, at):
    sql = BASE.format(w=window)
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    msg = str(e.value)
    assert f"{code}:" in msg
    column = sql.index(at, sql.index("OVER")) + 1
    assert f"(line 1, pos {column - 1})" in msg  # Spark's layout: a 0-based position
    # The caret line sits under the offending text of the user's own SQL.
    lines = msg.splitlines()
    sql_line = lines.index(sql)
    assert lines[sql_line + 1].startswith("-" * (column - 1) + "^")
    assert e.value.getCondition().startswith("OVERJOIN_")


def test_error_position_on_a_later_line(spark):
    sql = "SELECT STREAM *\nFROM a AS x\nJOIN b OVER (RANGE INTERVAL '5' SECOND FOLLOWING) AS y\n  ON x.k = y.k"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    assert "OJ102" in str(e.value)
    assert "(line 3, pos 39)" in str(e.value)


def test_unknown_named_window(spark):
    with pytest.raises(ParseException) as e:
        spark.sql("SELECT STREAM * FROM a OVER w1 AS x JOIN b ON x.k = b.k WINDOW w2 AS (RANGE CURRENT ROW)")
    assert "OJ107" in str(e.value)
    assert "(line 1, pos 28)" in str(e.value)


def test_cross_join_with_a_condition(spark):
    with pytest.raises(ParseException) as e:
        spark.sql("SELECT STREAM * FROM a OVER (RANGE CURRENT ROW) AS x CROSS JOIN b ON x.k = b.k")
    assert "OJ110" in str(e.value)


def test_spark_syntax_errors_inside_an_overjoin_query_show_the_users_text(spark):
    # (A comma before FROM, this test's first statement, is overjoin's error now: FROM cannot be a column there.)
    sql = "SELECT STREAM x.k + * 2 FROM a OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS x JOIN b ON x.k = b.k"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    msg = str(e.value)
    assert "PARSE_SYNTAX_ERROR" in msg
    # Spark's message shows the statement as written, OVER clause included, not the blanked text.
    assert sql in msg


# Statements the fuzzer found crashing the parser (issue 21): each is now a syntax error with a
# code, the problem and the fix, at the offending text. (statement, code, text pointed at, detail)
FOUND_BY_FUZZING = [
    ("SELECT STREAM ON * FROM a", "OJ001", "ON", "expected a select list after SELECT STREAM"),
    ("SELECT STREAM a + FROM b", "OJ001", "FROM", "expected an expression"),
    ("SELECT STREAM a, FROM b", "OJ001", "FROM", "expected an expression"),
    (
        "SELECT STREAM k, COUNT(*) FROM STREAM t GROUP BY k, STEP(t.ROWTIME BY 1" + "0" * 100_000 + ")",
        "OJ001",
        "1000",
        "the step of STEP(ts BY n) must fit a BIGINT (at most 9223372036854775807) or, with a fraction, "
        "a DECIMAL of at most 38 digits",
    ),
    (
        "SELECT STREAM k, COUNT(*) FROM STREAM t GROUP BY k, STEP(t.ROWTIME BY 1.2.3)",
        "OJ001",
        "1.2.3",
        "the step of STEP(ts BY n) is a number written as digits with an optional fraction, such as 1000 or 0.5",
    ),
    (
        "SELECT STREAM * FROM a OVER (ROWS 99999999999999999999 PRECEDING) JOIN b ON a.k = b.k",
        "OJ001",
        "9999",
        "a ROWS window counts at most 9223372036854775807 rows",
    ),
    ("SELECT STREAM * FROM a OVER (RANGE 1.5.5s PRECEDING) JOIN b ON a.k = b.k", "OJ114", "1.5.5s", None),
    ("SELECT STREAM * FROM a JOIN b ON a.k = b.k WITHIN 1.5.5s", "OJ114", "1.5.5s", None),
]


@pytest.mark.parametrize(("sql", "code", "at", "detail"), FOUND_BY_FUZZING, ids=lambda v: str(v)[:40])
def test_statements_found_by_fuzzing_are_syntax_errors_at_the_text(spark, sql, code, at, detail):
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    msg = str(e.value)
    assert f"{code}:" in msg and "OJ900" not in msg
    assert f"(line 1, pos {sql.index(at)})" in msg
    if detail is not None:
        assert e.value.getMessageParameters()["detail"] == detail
    else:
        assert "1.5.5s is not a duration" in msg


def test_step_with_a_string_says_what_step_takes(spark):
    """Vanilla Spark says PARSE_SYNTAX_ERROR; overjoin says what STEP takes and how to write it."""
    sql = "SELECT k, COUNT(*) FROM t GROUP BY k, STEP(t.ROWTIME BY '1 minute')"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    assert e.value.getCondition() == "OVERJOIN_SYNTAX_ERROR"
    assert e.value.getMessageParameters()["detail"] == (
        "expected an INTERVAL literal such as INTERVAL '1' MINUTE after BY, not a string: "
        "write INTERVAL '1 minute'; or a number, when the time is a number"
    )
    assert f"(line 1, pos {sql.index(chr(39))})" in str(e.value)
