"""Streams and pumps in SQL (docs/semantics.md §10) through `overjoin server`."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

# The clients of the server are test dependencies (pyproject's test extra): missing, these tests
# fail at import rather than skip.
import grpc  # noqa: F401
import pytest

from tests.server.feed import BASE, row, write_rows
from tests.server.serverproc import Server, free_port, wait_until

pytestmark = pytest.mark.server


def pumps(server: Server) -> dict[str, dict]:
    cols = ["name", "state", "target", "idle", "rows_out", "late_rows", "watermark", "batch", "error",
            "last_batch_ms", "output_lag_ms", "schema"]  # fmt: skip
    return {r[0]: dict(zip(cols, r)) for r in server.query("SHOW PUMPS") if r[-1] == "default"}


def error_of(server: Server, sql: str) -> str:
    with pytest.raises(Exception) as info:
        server.query(sql)
    return str(info.value)


@pytest.fixture(scope="module")
def source(server: Server):  # type: ignore[no-untyped-def]
    folder = server.state_dir.parent / "incoming"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM src (ROWTIME TIMESTAMP, id INT, name STRING) WITH (format = 'json', path = '{folder}')"
    )
    return folder


def test_durable_stream_insert_and_replay(server: Server) -> None:
    server.execute(
        "CREATE STREAM notes (id INT, txt VARCHAR(20) NOT NULL) DESCRIPTION 'a durable stream'",
        "INSERT INTO notes (id, txt, ROWTIME) VALUES (1, 'one', TIMESTAMP '2024-01-01 10:00:00')",
        "INSERT INTO notes VALUES (2, 'two', TIMESTAMP '2024-01-01 10:00:01')",
    )
    before = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)  # the server's session is UTC
    server.execute("INSERT INTO notes (id, txt) VALUES (3, 'three')")
    after = datetime.now(timezone.utc).replace(tzinfo=None)
    rows = server.query("SELECT id, txt, ROWTIME FROM notes ORDER BY id")
    assert [r[:2] for r in rows] == [(1, "one"), (2, "two"), (3, "three")]
    assert rows[0][2] == datetime(2024, 1, 1, 10, 0)
    assert rows[1][2] == datetime(2024, 1, 1, 10, 0, 1)
    # The implicit ROWTIME is the time of the insert: between the moments before and after it.
    assert before <= rows[2][2] <= after, (before, rows[2][2], after)
    streams = {r[0]: r for r in server.query("SHOW STREAMS")}
    assert streams["notes"][1] == "durable"
    assert "ROWTIME TIMESTAMP" in streams["notes"][2]
    assert streams["notes"][4] == "a durable stream"
    assert "already exists" in error_of(server, "CREATE STREAM notes (id INT)")
    server.execute("CREATE OR REPLACE STREAM notes (id INT)")
    assert server.query("SELECT count(*) FROM notes") == [(0,)]
    server.execute("DROP STREAM notes")
    assert "notes" not in {r[0] for r in server.query("SHOW STREAMS")}
    server.execute("DROP STREAM IF EXISTS notes")


def test_pump_outlives_its_client_and_pumps_chain(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    write_rows(source, "a", [row(i, name=f"n{i}") for i in range(5)])
    # Created from a PyHive session that closes right away.
    server.execute(
        "CREATE STREAM s1 (id INT, name STRING)",
        "CREATE STREAM s2 (id INT, doubled INT)",
        "CREATE PUMP p1 AS INSERT INTO s1 SELECT STREAM ROWTIME, id, name FROM STREAM src",
    )
    # Chained pump created from a Spark Connect client that then goes away.
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(f"sc://127.0.0.1:{server.connect_port}").getOrCreate()
    spark.sql("CREATE PUMP p2 AS INSERT INTO s2 (doubled, id) SELECT STREAM ROWTIME, id * 2, id FROM STREAM s1")
    spark.stop()
    write_rows(source, "b", [row(i, name=f"n{i}") for i in range(5, 10)])
    wait_until(lambda: server.ids("s2") == list(range(10)), what="s2 to hold ids 0..9")
    assert server.query("SELECT id, doubled FROM s2 WHERE id = 7") == [(7, 14)]
    assert server.ids("s1") == list(range(10))
    # ROWTIME is carried through the chain.
    assert server.query("SELECT ROWTIME FROM s2 WHERE id = 3") == [(datetime(2024, 1, 1, 10, 0, 3),)]
    state = wait_until(lambda: (p := pumps(server)) and p["p1"]["idle"] and p["p2"]["idle"] and p, what="idle pumps")
    assert state["p1"]["state"] == state["p2"]["state"] == "RUNNING"
    assert state["p1"]["rows_out"] == 10 and state["p2"]["rows_out"] == 10
    assert state["p1"]["target"] == "default.s1"
    # The last batch's duration, and how long after its latest ROWTIME (10:00:09) its rows became
    # visible: measured when they were written, so at most the time since then less than now.
    assert isinstance(state["p2"]["last_batch_ms"], int) and state["p2"]["last_batch_ms"] > 0
    since_rowtime_ms = (datetime.now(BASE.tzinfo) - (BASE + timedelta(seconds=9))).total_seconds() * 1000
    assert since_rowtime_ms - 120_000 < state["p2"]["output_lag_ms"] <= since_rowtime_ms
    # The watermark of p1's last micro-batch: the largest ROWTIME it had read before that batch
    # (lateness 0), 10:00:04 when that batch read file b (ids 5-9), 10:00:09 once another ran
    # after it; shown as Spark reports it, 1 ms behind overjoin's (docs/semantics.md §8).
    assert state["p1"]["watermark"] in ("2024-01-01T10:00:03.999Z", "2024-01-01T10:00:08.999Z"), state["p1"]
    # Each pump writes its micro-batches from their own plan (no write query per batch): one
    # Parquet file (and its checksum) per batch that had rows, named after the pump and the batch,
    # nothing left aside, no commit protocol's files.
    for name in ("p1", "p2"):
        sink = dict(server.query(f"DESCRIBE PUMP {name}"))["sink"]
        assert sink == "overjoin pump files: one Parquet file per micro-batch, from its own plan", sink
    location = Path({r[0]: r[5] for r in server.query("SHOW STREAMS")}["s2"].removeprefix("file:"))
    names = sorted(p.name for p in location.iterdir() if p.name not in ("_staging", "_log"))
    files = [n for n in names if not n.startswith(".")]
    assert files and all(re.fullmatch(r"pump-p2-g\d+-b\d{12}\.parquet", n) for n in files), names
    assert sorted(n for n in names if n.startswith(".")) == sorted(f".{n}.crc" for n in files), names
    # The stream's log names each of its files once, in the order p2 wrote them (its batches').
    entries = sorted(p for p in (location / "_log").rglob("*") if p.is_file() and p.name.isdigit())
    assert [p.name for p in entries] == [f"{i:012d}" for i in range(1, len(files) + 1)]
    assert [p.read_text() for p in entries] == files
    # p1 reads a source stream over a folder with Spark's file source; p2 reads s1 (p1's target)
    # from the stream's log.
    assert dict(server.query("DESCRIBE PUMP p1"))["sources"].startswith("FileStreamSource[")
    assert dict(server.query("DESCRIBE PUMP p2"))["sources"].startswith("overjoin stream log[")
    aside = location / "_staging"
    assert not aside.exists() or not [*aside.iterdir()], [*aside.iterdir()]
    described = dict(server.query("DESCRIBE PUMP p2"))
    assert described["target"] == "default.s2" and described["columns"] == "doubled, id"
    assert described["query"].startswith("SELECT STREAM ROWTIME, id * 2")
    # The server's --conf spark.sql.shuffle.partitions=2 (serverproc), kept by the checkpoint.
    assert (described["shuffle_partitions"], described["shuffle_partitions_from"]) == (
        "2",
        "the pump's checkpoint (fixed for its life)",
    )


def test_spark_ui_shows_each_pump_by_name(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    """The Spark UI runs on loopback by default; each pump's query is named after the pump."""
    import urllib.request

    wait_until(lambda: pumps(server)["p1"]["state"] == "RUNNING", what="p1 running")
    with urllib.request.urlopen(f"http://127.0.0.1:{server.ui_port}/StreamingQuery/", timeout=30) as page:
        html = page.read().decode("utf-8", "replace")
    active = html.split("Active Streaming Queries", 1)[1].split("Completed Streaming Queries", 1)[0]
    names = set(re.findall(r"<td>\s*([\w-]+)\s*</td>", active))
    assert {"p1", "p2"} <= names, active[:3000]


def test_a_pump_keeps_its_own_shuffle_partitions(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    server.execute(
        "CREATE STREAM wide (id INT)",
        "SET spark.sql.shuffle.partitions=3",
        "CREATE PUMP wide_pump STOPPED AS INSERT INTO wide SELECT STREAM ROWTIME, id FROM STREAM src",
    )
    described = dict(server.query("DESCRIBE PUMP wide_pump"))
    assert (described["shuffle_partitions"], described["shuffle_partitions_from"]) == ("3", "the pump's settings")
    assert "spark.sql.shuffle.partitions=3" in described["settings"]
    server.execute("ALTER PUMP wide_pump START")
    wait_until(lambda: len(server.ids("wide")) >= 10, what="wide_pump to copy src")
    described = dict(server.query("DESCRIBE PUMP wide_pump"))
    assert (described["shuffle_partitions"], described["shuffle_partitions_from"]) == (
        "3",
        "the pump's checkpoint (fixed for its life)",
    )
    server.execute("DROP PUMP wide_pump", "DROP STREAM wide")


def test_two_pumps_write_one_stream(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    server.execute(
        "CREATE STREAM merged (id INT, origin STRING)",
        "CREATE PUMP m1 AS INSERT INTO merged SELECT STREAM ROWTIME, id, 'm1' FROM STREAM src",
        "CREATE PUMP m2 AS INSERT INTO merged SELECT STREAM ROWTIME, id + 1000, 'm2' FROM STREAM src",
    )
    expected = sorted([*range(10), *range(1000, 1010)])
    wait_until(lambda: server.ids("merged") == expected, what="both pumps' rows in merged")
    assert server.query("SELECT origin, count(*) FROM merged GROUP BY origin ORDER BY origin") == [
        ("m1", 10),
        ("m2", 10),
    ]
    writers = {r[0]: r[3] for r in server.query("SHOW STREAMS")}
    assert writers["merged"] == "m1,m2"
    assert "cannot be dropped" in error_of(server, "DROP STREAM merged")
    server.execute("DROP PUMP m1", "DROP PUMP m2")  # running pumps: stopped first
    assert "m1" not in pumps(server) and "m2" not in pumps(server)
    server.execute("DROP STREAM merged")


def test_alter_pump_stop_and_start(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    server.execute(
        "CREATE STREAM paused (id INT)",
        "CREATE PUMP pz STOPPED AS INSERT INTO paused SELECT STREAM ROWTIME, id FROM STREAM src",
    )
    assert pumps(server)["pz"]["state"] == "STOPPED"
    server.execute("ALTER PUMP pz START")
    wait_until(lambda: len(server.ids("paused")) == 10, what="pz to copy src")
    server.execute("ALTER PUMP pz STOP")
    assert pumps(server)["pz"]["state"] == "STOPPED"
    write_rows(source, "c", [row(i, name="c") for i in range(10, 12)])
    wait_until(lambda: server.ids("s1")[-2:] == [10, 11], what="p1 to copy file c")
    assert len(server.ids("paused")) == 10  # a stopped pump does not move
    server.execute("ALTER PUMP pz START")
    wait_until(lambda: server.ids("paused") == list(range(12)), what="pz to resume where it stopped")
    server.execute("DROP PUMP pz", "DROP STREAM paused")


def test_bad_ddl_fails_naming_the_object_and_changes_nothing(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    before_pumps, before_streams = set(pumps(server)), server.query("SHOW STREAMS")
    server.execute("CREATE TABLE plain_t (id INT) USING parquet")
    server.execute("CREATE DATABASE IF NOT EXISTS other_db")
    checks = {
        "CREATE PUMP bad1 AS INSERT INTO s1 SELECT STREAM ROWTIME, nosuch, name FROM STREAM src": ["bad1", "nosuch"],
        "CREATE PUMP bad2 AS INSERT INTO plain_t SELECT STREAM ROWTIME, id FROM STREAM src": [
            "bad2",
            "plain_t",
            "not a stream",
        ],
        "CREATE PUMP bad3 AS INSERT INTO nowhere SELECT STREAM ROWTIME, id FROM STREAM src": [
            "bad3",
            "nowhere",
            "does not exist",
        ],
        "CREATE PUMP bad4 AS INSERT INTO s1 (nope) SELECT STREAM ROWTIME, id FROM STREAM src": [
            "bad4",
            "no column nope",
        ],
        # Filled in order (KDA's rule): ROWTIME would fill id, and a TIMESTAMP is not an INT.
        "CREATE PUMP bad5 AS INSERT INTO s1 SELECT STREAM ROWTIME, id FROM STREAM src": [
            "bad5",
            "default.s1.id (INT) cannot take the query's column 1, ROWTIME (TIMESTAMP)",
        ],
        "CREATE PUMP bad9 AS INSERT INTO s1 SELECT STREAM id FROM STREAM src": [
            "bad9",
            "the query returns 1 column(s) (id) but default.s1 takes 2 (id, name)",
        ],
        # A plain SELECT is read as SELECT STREAM in a pump (KDA's); one of a table still reads no stream.
        "CREATE PUMP bad6 AS INSERT INTO s1 SELECT id, CAST(id AS STRING) FROM plain_t": ["bad6", "reads no stream"],
        f"CREATE STREAM bad7 (id INT) WITH (format = 'json', path = '{source}', rowtime = 'id')": [
            "bad7",
            "its rowtime id must be a TIMESTAMP, not INT",
        ],
        "CREATE STREAM bad8 (id INT) WITH (colour = 'red')": ["bad8", "unknown option colour"],
        "CREATE PUMP p1 AS INSERT INTO s1 SELECT STREAM ROWTIME, id, name FROM STREAM src": ["p1", "already exists"],
        "ALTER PUMP ghost START": ["ghost", "does not exist"],
        "CREATE STREAM s1 (id INT)": ["s1", "already exists"],
        "CREATE OR REPLACE STREAM s1 (id INT)": ["s1", "p1", "write it"],
    }
    for sql, words in checks.items():
        message = error_of(server, sql)
        for word in words:
            assert word in message, (sql, message[:500])
    assert set(pumps(server)) == before_pumps
    assert server.query("SHOW STREAMS") == before_streams
    syntax = error_of(server, "CREATE PUMP p9 AS INSERT s1 SELECT 1")
    assert "PARSE_SYNTAX_ERROR" in syntax and "expected INTO" in syntax


def test_a_failed_pump_shows_its_error_and_others_keep_running(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    server.execute(
        "CREATE STREAM nums (id INT, n INT)",
        # ANSI casts fail at run time on a name that is not a number.
        "CREATE PUMP fragile AS INSERT INTO nums SELECT STREAM ROWTIME, id, CAST(name AS INT) FROM STREAM src",
    )
    failed = wait_until(
        lambda: (p := pumps(server)) and p["fragile"]["state"] == "FAILED" and p, what="fragile to fail"
    )
    assert "CAST" in failed["fragile"]["error"].upper() or "cast" in failed["fragile"]["error"]
    assert failed["p1"]["state"] == "RUNNING"
    write_rows(source, "d", [row(12, name="d")])
    wait_until(lambda: server.ids("s1")[-1] == 12, what="p1 to keep running")
    server.execute("DROP PUMP fragile", "DROP STREAM nums")


def test_step_aggregation_pump_and_a_join_of_the_aggregated_stream(server: Server) -> None:
    """The KDA template: a pump aggregates by STEP(... ROWTIME ...) without selecting ROWTIME (the
    window's end becomes the target's ROWTIME), and a chained pump joins the aggregated stream."""
    folder = server.state_dir.parent / "ticks_in"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM ticks (ROWTIME TIMESTAMP, id INT, name STRING) WITH (format = 'json', path = '{folder}')",
        "CREATE STREAM per_10s (name STRING, n BIGINT, total BIGINT)",
        'CREATE PUMP "agg_pump" AS INSERT INTO "per_10s" SELECT STREAM "name", COUNT(*) AS n, SUM(id) AS total '
        'FROM STREAM "ticks" GROUP BY "name", STEP("ticks".ROWTIME BY INTERVAL \'10\' SECOND)',
        "CREATE STREAM busy (name STRING, n BIGINT, id INT)",
        "CREATE PUMP busy_pump AS INSERT INTO busy SELECT STREAM ROWTIME, a.name, a.n, t.id FROM STREAM per_10s AS a "
        "JOIN STREAM ticks OVER (RANGE INTERVAL '1' SECOND PRECEDING) AS t ON a.name = t.name",
    )
    write_rows(folder, "t1", [row(i, name="xy"[i % 2]) for i in range(30)])
    write_rows(folder, "t2", [row(100, name="z")])  # moves the watermark past every window above

    def at(s: int) -> datetime:
        return BASE.replace(tzinfo=None) + timedelta(seconds=s)

    expected = [
        (at(e), name, 5, sum(i for i in range(e - 10, e) if "xy"[i % 2] == name)) for e in (10, 20, 30) for name in "xy"
    ]
    wait_until(lambda: len(server.query("SELECT * FROM per_10s")) == 6, what="six closed windows in per_10s")
    assert server.query("SELECT ROWTIME, name, n, total FROM per_10s ORDER BY ROWTIME, name") == expected
    # Each window's row meets the ticks of the second before its end (its own name only).
    busy = [(at(10), "x", 5, 10), (at(10), "y", 5, 9), (at(20), "x", 5, 20), (at(20), "y", 5, 19), (at(30), "y", 5, 29)]
    seen: list = []

    def joined() -> bool:
        seen[:] = server.query("SELECT ROWTIME, name, n, id FROM busy ORDER BY ROWTIME, name")
        return len(seen) == len(busy)

    try:
        wait_until(joined, what="the join of per_10s and ticks")
    except AssertionError as timed_out:  # say what the join had made, and how the pumps were
        raise AssertionError(f"{timed_out}; busy held {seen}; pumps: {pumps(server)}") from timed_out
    assert seen == busy
    state = pumps(server)
    assert state["agg_pump"]["state"] == "RUNNING" and state["agg_pump"]["rows_out"] == 6
    server.execute("DROP PUMP busy_pump", "DROP PUMP agg_pump", "DROP STREAM busy", "DROP STREAM per_10s")


APPS = {"app_a": 0, "app_b": 1}  # each application's pump keeps the ids of this parity


def app_ids(server: Server, db: str) -> list[int]:
    return [r[0] for r in server.query(f"SELECT id FROM {db}.DESTINATION_SQL_STREAM ORDER BY id")]


def test_two_schemas_each_have_a_pump_of_one_name(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    """A pump is named within its schema (docs/server.md, "Pump names"): two applications, each in
    its own database, each CREATE OR REPLACE PUMP "STREAM_PUMP" as most KDA applications name their
    pump, and each runs its own. A bare name means the current database's pump; from a database with
    none, a name two schemas have is an error that asks for the schema."""
    for db, parity in APPS.items():
        server.execute(
            f"CREATE DATABASE IF NOT EXISTS {db}",
            f"USE {db}",
            'CREATE OR REPLACE STREAM "DESTINATION_SQL_STREAM" ("id" INTEGER)',
            'CREATE OR REPLACE PUMP "STREAM_PUMP" AS INSERT INTO "DESTINATION_SQL_STREAM"\n'
            f'SELECT STREAM "id" FROM default.src WHERE MOD("id", 2) = {parity}',
        )
    written = server.ids("s1")  # every id src has had so far
    for db, parity in APPS.items():
        want = [i for i in written if i % 2 == parity]
        wait_until(lambda db=db, want=want: app_ids(server, db) == want, what=f"{db}'s STREAM_PUMP")
    shown = [(r[0], r[1], r[-1]) for r in server.query("SHOW PUMPS") if r[0] == "STREAM_PUMP"]
    assert shown == [("STREAM_PUMP", "RUNNING", "app_a"), ("STREAM_PUMP", "RUNNING", "app_b")]
    message = error_of(server, 'ALTER PUMP "STREAM_PUMP" STOP')
    assert "several schemas (app_a, app_b)" in message and '"schema"."STREAM_PUMP"' in message
    described = dict(server.query('DESCRIBE PUMP "app_b"."STREAM_PUMP"'))
    assert described["schema"] == "app_b" and described["query"].endswith("= 1")
    # The current database's pump is the one a bare name means: app_a's stops, app_b's runs on.
    server.execute("USE app_a", 'ALTER PUMP "STREAM_PUMP" STOP')
    states = {r[-1]: r[1] for r in server.query("SHOW PUMPS") if r[0] == "STREAM_PUMP"}
    assert states == {"app_a": "STOPPED", "app_b": "RUNNING"}
    server.execute("USE app_a", 'ALTER PUMP "STREAM_PUMP" START')
    # The first keeps the files a pump always had; the second is named by its schema too.
    files = sorted(p.name for p in (server.state_dir / "pumps").iterdir() if "stream_pump" in p.name)
    assert files == ["app_b~stream_pump.properties", "stream_pump.properties"]


def test_pumps_come_back_after_a_restart(server: Server, source) -> None:  # type: ignore[no-untyped-def]
    server.execute("ALTER PUMP p2 STOP")
    server.stop()
    server.thrift_port, server.connect_port = free_port(), free_port()
    write_rows(source, "e", [row(13, name="e")])
    server.start()
    state = pumps(server)
    assert state["p1"]["state"] == "RUNNING" and state["p2"]["state"] == "STOPPED"
    wait_until(lambda: server.ids("s1")[-1] == 13, what="p1 to run after the restart")
    assert server.ids("s1") == list(range(14))
    # Each schema's STREAM_PUMP resumes from its own checkpoint: every id once, in its own stream.
    wait_until(lambda: app_ids(server, "app_b")[-1:] == [13], what="app_b's STREAM_PUMP after the restart")
    for db, parity in APPS.items():
        assert app_ids(server, db) == [i for i in range(14) if i % 2 == parity]
