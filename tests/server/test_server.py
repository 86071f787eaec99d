"""`overjoin server`: one JVM serving Thrift (beeline, PyHive) and Spark Connect on loopback."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime

# The clients of the server are test dependencies (pyproject's test extra): missing, these tests
# fail at import rather than skip.
import grpc  # noqa: F401
import pytest

from tests.server.serverproc import Server, beeline_rows, listening_addresses

pytestmark = pytest.mark.server

SETUP = """
CREATE TABLE orders_t (rowtime TIMESTAMP, orderId INT, product STRING) USING parquet;
INSERT INTO orders_t VALUES
  (TIMESTAMP '2024-01-01 10:00:00', 1, 'apple'),
  (TIMESTAMP '2024-01-01 10:30:00', 2, 'pear'),
  (TIMESTAMP '2024-01-01 08:00:00', 3, 'plum');
CREATE TABLE shipments_t (rowtime TIMESTAMP, orderId INT) USING parquet;
INSERT INTO shipments_t VALUES
  (TIMESTAMP '2024-01-01 10:20:00', 1),
  (TIMESTAMP '2024-01-01 12:00:00', 2),
  (TIMESTAMP '2024-01-01 09:30:00', 3);
"""

# The README's Orders/Shipments join, over tables (replay): only order 1 shipped within the hour.
JOIN = """SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime
FROM shipments_t AS s
JOIN orders_t OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
  ON o.orderId = s.orderId"""
JOIN_ROW = (datetime(2024, 1, 1, 10, 20), 1, datetime(2024, 1, 1, 10, 0))


@pytest.fixture(scope="module")
def tables(server, tmp_path_factory):  # type: ignore[no-untyped-def]
    sql = tmp_path_factory.mktemp("sql") / "setup.sql"
    sql.write_text(SETUP)
    done = server.beeline(sql)
    assert done.returncode == 0, done.stderr
    return server


def _as_datetime(v):  # type: ignore[no-untyped-def]
    return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))


def test_ready_line_names_both_ports(server: Server) -> None:
    assert re.fullmatch(
        rf"overjoin server ready thrift=127\.0\.0\.1:{server.thrift_port} connect=127\.0\.0\.1:{server.connect_port}"
        rf" ui=http://127\.0\.0\.1:{server.ui_port}",
        server.ready_line,
    ), server.ready_line


def test_both_ports_listen_on_loopback_only(server: Server) -> None:
    for port in (server.thrift_port, server.connect_port, server.ui_port):
        addresses = listening_addresses(server.pid, port)
        assert addresses, f"nothing listens on {port}"
        assert addresses <= {"127.0.0.1", "::ffff:127.0.0.1"}, addresses


def test_state_dir_holds_catalog_warehouse_and_log(server: Server, tables: Server) -> None:
    for name in ("metastore_db", "warehouse/orders_t", "server.log", "lib", "log4j2.properties"):
        assert (server.state_dir / name).exists(), name
    assert "HiveThriftServer2" in (server.state_dir / "server.log").read_text(errors="replace")


def test_beeline_runs_plain_sql_and_the_windowed_join(tables: Server, tmp_path) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT count(*) FROM orders_t;\n" + JOIN + ";\n")
    done = tables.beeline(sql)
    assert done.returncode == 0, done.stderr
    assert beeline_rows(done.stdout) == ["3", "2024-01-01 10:20:00.0\t1\t2024-01-01 10:00:00.0"], done.stdout
    lines = beeline_rows(done.stdout)
    assert lines == ["3", "2024-01-01 10:20:00.0\t1\t2024-01-01 10:00:00.0"], done.stdout


def test_beeline_reports_a_failed_statement(tables: Server, tmp_path) -> None:
    sql = tmp_path / "bad.sql"
    sql.write_text("SELECT STREAM o.orderId FROM orders_t OVER (RANGE INTERVAL '1' HOUR) AS o JOIN shipments_t s;\n")
    done = tables.beeline(sql)
    assert done.returncode != 0
    # The window lacks PRECEDING: overjoin's syntax error, with its code, reaches the client.
    out = done.stderr + done.stdout
    assert "OJ001" in out and "expected PRECEDING" in out, out


def test_many_pyhive_sessions_then_the_join_still_works(tables: Server) -> None:
    # HiveServer2 closes a session's class loaders when the session closes; with the jar only on
    # spark.jars, overjoin classes first needed after that failed with NoClassDefFoundError.
    failures = []
    for i in range(30):
        sql = [JOIN, "SELECT 1", "SELECT count(*) FROM shipments_t", "SELECT STREAM x FROM nope OVER (RANGE x)"][i % 4]
        try:
            rows = tables.query(sql)
        except Exception as error:
            # Only the fourth statement fails, and with overjoin's own error (`RANGE x`: x is read
            # as a Lenses duration, which it is not), not with a class that could no longer be loaded.
            message = str(error)
            if i % 4 != 3 or "OJ114" not in message or "x is not a duration" not in message:
                failures.append((i, repr(error)[:300]))
            continue
        if i % 4 == 0:
            rows = [(_as_datetime(a), b, _as_datetime(c)) for a, b, c in rows]
        want = [[JOIN_ROW], [(1,)], [(3,)], "an error"][i % 4]
        if rows != want:
            failures.append((i, f"{sql!r} returned {rows!r}, not {want!r}"))
    assert failures == []
    rows = tables.query(JOIN)
    assert [(_as_datetime(a), b, _as_datetime(c)) for a, b, c in rows] == [JOIN_ROW]


def test_spark_connect_client_runs_the_join(tables: Server) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(f"sc://127.0.0.1:{tables.connect_port}").getOrCreate()
    try:
        assert spark.sql("SELECT 40 + 2 AS x").collect()[0].x == 42
        rows = [tuple(r) for r in spark.sql(JOIN).collect()]
        assert rows == [JOIN_ROW]
        assert "io.overjoin.OverjoinExtensions" in spark.conf.get("spark.sql.extensions")
    finally:
        spark.stop()


def test_refuses_a_non_loopback_host_without_a_token(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "overjoin", "server", "--host", "0.0.0.0", "--state-dir", str(tmp_path / "s")],
        capture_output=True, text=True, timeout=60,
        env={k: v for k, v in __import__("os").environ.items() if k != "OVERJOIN_SERVER_TOKEN"},
    )  # fmt: skip
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without authentication" in done.stderr


def test_sigterm_stops_the_server(server: Server) -> None:
    code = server.stop(timeout=120)
    assert code in (0, 143), code
    assert "overjoin server: stopped in" in server.stderr()
