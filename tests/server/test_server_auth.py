"""`overjoin server --token-file`: JDBC clients give the token as the password, Connect clients as token=."""

from __future__ import annotations

import contextlib
import re

# The clients of the server are test dependencies (pyproject's test extra): missing, these tests
# fail at import rather than skip.
import grpc  # noqa: F401
import pyhive.hive  # noqa: F401
import pytest

from tests.server.serverproc import Server, beeline_rows

pytestmark = pytest.mark.server

TOKEN = "s3cret-t0ken"


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    base = tmp_path_factory.mktemp("auth")
    token_file = base / "token"
    token_file.write_text(TOKEN + "\n")
    srv = Server(base / "state", extra=["--token-file", str(token_file)]).start()
    yield srv
    srv.stop()


def test_pyhive_needs_the_token_as_password(server: Server) -> None:
    conn = server.hive(auth="CUSTOM", password=TOKEN)
    try:
        cur = conn.cursor()
        cur.execute("SELECT 6 * 7")
        assert cur.fetchall() == [(42,)]
    finally:
        conn.close()
    with pytest.raises(Exception, match=r"(?i)auth|validating|login|sasl"):
        server.hive(auth="CUSTOM", password="wrong").cursor().execute("SELECT 1")


def test_beeline_with_the_token(server: Server, tmp_path) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT 'ok';\n")
    done = server.beeline(sql, "-n", "someone", "-p", TOKEN)
    assert done.returncode == 0, done.stderr
    assert beeline_rows(done.stdout) == ["ok"]
    refused = server.beeline(sql, "-n", "someone", "-p", "nope")
    assert refused.returncode != 0
    # Refused at login: the server's authentication error, and the statement never ran.
    out = refused.stderr + refused.stdout
    assert re.search(r"(?i)error validating the login|authentication", out), out
    assert beeline_rows(refused.stdout) == []


def test_connect_needs_the_token(server: Server) -> None:
    from pyspark.sql import SparkSession

    # With a token, pyspark's client uses TLS unless the host is literally `localhost`.
    spark = SparkSession.builder.remote(f"sc://localhost:{server.connect_port}/;token={TOKEN}").getOrCreate()
    try:
        assert spark.sql("SELECT 42 AS x").collect()[0].x == 42
    finally:
        spark.stop()
    anonymous = SparkSession.builder.remote(f"sc://localhost:{server.connect_port}").create()
    try:
        with pytest.raises(Exception, match=r"UNAUTHENTICATED|authentication"):
            anonymous.sql("SELECT 1").collect()
    finally:
        with contextlib.suppress(Exception):
            anonymous.stop()
