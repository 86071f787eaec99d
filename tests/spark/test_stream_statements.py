"""Stream statements in a plain session (no `overjoin server`): streams work, pumps say they need the server."""

from __future__ import annotations

import pytest


def test_create_insert_select_and_drop_a_stream(spark):
    spark.sql("CREATE STREAM st_plain (id INT, name STRING)")
    try:
        spark.sql("INSERT INTO st_plain (id, name, ROWTIME) VALUES (1, 'a', TIMESTAMP '2024-01-01 10:00:00')")
        rows = spark.sql("SELECT id, name, ROWTIME FROM st_plain").collect()
        assert [(r.id, r.name, str(r.ROWTIME)) for r in rows] == [(1, "a", "2024-01-01 10:00:00")]
        shown = {r.name: r for r in spark.sql("SHOW STREAMS").collect()}
        assert shown["st_plain"].kind == "durable"
    finally:
        spark.sql("DROP STREAM IF EXISTS st_plain")
    assert "st_plain" not in {r.name for r in spark.sql("SHOW STREAMS").collect()}


def test_pumps_need_the_server(spark):
    spark.sql("CREATE STREAM st_target (id INT)")
    try:
        with pytest.raises(Exception, match="pumps run in `overjoin server`"):
            spark.sql("CREATE PUMP p AS INSERT INTO st_target SELECT STREAM ROWTIME, id FROM STREAM st_target")
        assert spark.sql("SHOW PUMPS").collect() == []
    finally:
        spark.sql("DROP STREAM st_target")


def test_a_table_named_pump_is_still_a_table(spark):
    spark.sql("CREATE TABLE pump (id INT) USING parquet")
    try:
        assert [r.col_name for r in spark.sql("DESC pump").collect()][0] == "id"
        assert spark.sql("SELECT count(*) AS n FROM pump").collect()[0].n == 0
    finally:
        spark.sql("DROP TABLE pump")


def test_a_syntax_error_in_a_pump_statement_is_a_parse_error(spark):
    from pyspark.errors import ParseException

    with pytest.raises(ParseException, match="expected START or STOP"):
        spark.sql("ALTER PUMP p PAUSE")
