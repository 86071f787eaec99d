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
        assert next(r.col_name for r in spark.sql("DESC pump").collect()) == "id"
        assert spark.sql("SELECT count(*) AS n FROM pump").collect()[0].n == 0
    finally:
        spark.sql("DROP TABLE pump")


def test_a_syntax_error_in_a_pump_statement_is_a_parse_error(spark):
    from pyspark.errors import ParseException

    with pytest.raises(ParseException, match="expected START or STOP"):
        spark.sql("ALTER PUMP p PAUSE")


def test_select_stream_reads_a_declared_stream_as_a_stream_without_the_keyword(spark, tmp_path):
    """docs/semantics.md §10: KDA writes `SELECT STREAM ... FROM "SOURCE_SQL_STREAM_001"`; a plain
    SELECT of the same stream is its rows so far (replay). Tables stay tables."""
    spark.sql("CREATE STREAM st_kda (id INT, name STRING)")
    spark.sql("CREATE TABLE st_ref (id INT, label STRING) USING parquet")
    try:
        spark.sql(
            "INSERT INTO st_kda (id, name, ROWTIME) VALUES (1, 'a', TIMESTAMP '2024-01-01 10:00:00'), "
            "(2, 'b', TIMESTAMP '2024-01-01 10:00:05')"
        )
        spark.sql("INSERT INTO st_ref VALUES (1, 'one'), (2, 'two')")
        assert spark.sql("SELECT STREAM ROWTIME, id FROM st_kda").isStreaming
        assert spark.sql('SELECT STREAM ROWTIME, "id" FROM "st_kda" AS s WHERE s.id > 0').isStreaming
        assert not spark.sql("SELECT ROWTIME, id FROM st_kda").isStreaming
        assert sorted(r.id for r in spark.sql("SELECT ROWTIME, id FROM st_kda").collect()) == [1, 2]
        # Inside the FROM clause's subqueries too; the reference table stays a table (a stream-table join).
        joined = spark.sql(
            "SELECT STREAM ROWTIME, x.id, r.label FROM (SELECT * FROM st_kda WHERE id > 0) AS x "
            "JOIN st_ref AS r ON r.id = x.id"
        )
        assert joined.isStreaming
        query = (
            joined.writeStream.format("memory")
            .queryName("st_kda_out")
            .trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )
        query.awaitTermination(120)
        rows = sorted((r.id, r.label) for r in spark.table("st_kda_out").collect())
        assert rows == [(1, "one"), (2, "two")]
    finally:
        spark.sql("DROP STREAM IF EXISTS st_kda")
        spark.sql("DROP TABLE IF EXISTS st_ref")


def test_double_quoted_names_in_stream_statements_are_identifiers(spark):
    """docs/semantics.md §0: as KDA writes them, whatever spark.sql.ansi.doubleQuotedIdentifiers says."""
    spark.sql('CREATE STREAM "ST_QUOTED" ("accountNumber" INT, "with space" VARCHAR(8), "ROWTIME" TIMESTAMP)')
    try:
        names = [f.name for f in spark.table("st_quoted").schema.fields]
        assert names == ["accountNumber", "with space", "ROWTIME"]
        spark.sql("INSERT INTO st_quoted VALUES (7, 'x', TIMESTAMP '2024-01-01 00:00:00')")
        assert spark.sql('SELECT STREAM "accountNumber" FROM "ST_QUOTED"').isStreaming
        assert spark.sql("SELECT `with space` FROM st_quoted").collect()[0][0] == "x"
    finally:
        spark.sql('DROP STREAM "ST_QUOTED"')


def test_a_source_stream_declares_its_rowtime_column_and_lateness(spark, tmp_path):
    """CREATE STREAM ... WITH (rowtime = 'col', lateness = '...') (docs/semantics.md §10): the
    column is the stream's rowtime (ROWTIME in its queries) and rows later than the stream's own
    lateness, not the session's, are dropped."""
    import json
    import os

    from pyspark.errors import IllegalArgumentException

    folder = tmp_path / "in"
    folder.mkdir()
    with pytest.raises(IllegalArgumentException, match="its rowtime id must be a TIMESTAMP, not INT"):
        spark.sql(f"CREATE STREAM st_bad (ts TIMESTAMP, id INT) WITH (path = '{folder}', rowtime = 'id')")
    with pytest.raises(IllegalArgumentException, match="bad lateness 'soon'"):
        spark.sql(f"CREATE STREAM st_bad (ROWTIME TIMESTAMP) WITH (path = '{folder}', lateness = 'soon')")
    spark.sql(
        f"CREATE STREAM st_src (event_time TIMESTAMP, id INT) "
        f"WITH (format = 'json', path = '{folder}', rowtime = 'event_time', lateness = '30 seconds')"
    )

    def write(name: str, rows: list[tuple[str, int]]) -> None:
        tmp = folder / f".{name}"
        tmp.write_text("".join(json.dumps({"event_time": t, "id": i}) + "\n" for t, i in rows))
        os.replace(tmp, folder / f"{name}.json")

    try:
        # A stateful query (a tumbling window) is where late rows are dropped (docs/semantics.md §8).
        query = (
            spark.sql(
                "SELECT STREAM ROWTIME, COUNT(*) AS n, MIN(id) AS first FROM st_src "
                "GROUP BY STEP(st_src.ROWTIME BY INTERVAL '1' MINUTE)"
            )
            .writeStream.format("memory")
            .queryName("st_src_out")
            .option("checkpointLocation", str(tmp_path / "ckpt"))
            .start()
        )
        try:
            write("a", [("2024-01-01T10:02:10Z", 1)])  # the watermark becomes 10:01:40
            query.processAllAvailable()
            # Its window (10:01-10:02) is still open 30 s after 10:02:10, as it would not be with
            # the session's lateness (0 s); 10:00:50's window closed before it came.
            write("b", [("2024-01-01T10:01:50Z", 2), ("2024-01-01T10:00:50Z", 3)])
            query.processAllAvailable()
            write("c", [("2024-01-01T10:04:00Z", 4)])  # closes every window before 10:03:30
            query.processAllAvailable()
        finally:
            query.stop()
        rows = sorted((str(r.ROWTIME), r.n, r.first) for r in spark.table("st_src_out").collect())
        assert rows == [("2024-01-01 10:02:00", 1, 2), ("2024-01-01 10:03:00", 1, 1)]
    finally:
        spark.sql("DROP STREAM IF EXISTS st_src")
