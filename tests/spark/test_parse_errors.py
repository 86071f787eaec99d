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
    sql = "SELECT STREAM x.k, FROM a OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS x JOIN b ON x.k = b.k"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    msg = str(e.value)
    assert "PARSE_SYNTAX_ERROR" in msg
    # Spark's message shows the statement as written, OVER clause included, not the blanked text.
    assert sql in msg
