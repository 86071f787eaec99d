"""Streams over Kinesis data streams (docs/server.md) against moto's Kinesis server on loopback.

One moto server and one `overjoin server` for the module; the restart test replaces the server by a
new one on the same state directory, which the tests after it use.
"""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from tests.server.kinesis import CREDENTIALS, REGION, Moto
from tests.server.kinesis_proxy import ThrottlingProxy
from tests.server.serverproc import Server, free_port
from tests.server.serverproc import wait_until as _wait_until

pytestmark = pytest.mark.server

#: A Kinesis pump starts a Python worker, which Spark gives 10 s; on a busy machine the server starts
#: the pump again (docs/server.md, "Python workers"), so waits are longer than elsewhere.
WAIT = 400.0


def wait_until(check, what: str = "condition"):  # type: ignore[no-untyped-def]
    return _wait_until(check, timeout=WAIT, what=what)


# boto3, moto and pyhive are test dependencies (pyproject's test extra): missing, this fails at import.
import boto3  # noqa: E402, F401
import moto as moto_package  # noqa: E402, F401
import pyhive.hive  # noqa: E402, F401


@pytest.fixture(scope="module")
def moto(tmp_path_factory):  # type: ignore[no-untyped-def]
    m = Moto(tmp_path_factory.mktemp("moto") / "moto.log").start()
    yield m
    m.stop()


class Servers:
    """The module's server, replaced by a restart."""

    def __init__(self, state) -> None:  # type: ignore[no-untyped-def]
        self.state = state
        self.current = self.start()

    def start(self) -> Server:
        return Server(self.state, env={**os.environ, **CREDENTIALS}).start()

    def restart(self, kill: bool) -> Server:
        if kill:
            self.current.kill()
        else:
            self.current.stop()
        self.current = self.start()
        return self.current


@pytest.fixture(scope="module")
def servers(tmp_path_factory):  # type: ignore[no-untyped-def]
    s = Servers(tmp_path_factory.mktemp("kserver") / "state")
    yield s
    s.current.stop()


def with_options(moto: Moto, stream: str, **extra: str) -> str:
    opts = {"format": "kinesis", "stream": stream, "region": REGION, "endpoint": moto.endpoint, **extra}
    return ", ".join(f"{k} = '{v}'" for k, v in opts.items())


def describe(server: Server, pump: str) -> dict[str, str]:
    return {r[0]: r[1] for r in server.query(f"DESCRIBE PUMP {pump}")}


def pumps(server: Server) -> dict[str, tuple]:
    return {r[0]: r for r in server.query("SHOW PUMPS")}


def error_of(server: Server, sql: str) -> str:
    with pytest.raises(Exception) as info:
        server.query(sql)
    return str(info.value)


def orders(start: int, n: int) -> list[dict]:
    return [{"id": i, "ticker": f"T{i % 3}", "price": float(i)} for i in range(start, start + n)]


def test_pump_from_kinesis_to_durable_stream(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.create("orders", shards=2)
    moto.put("orders", orders(0, 10))
    server.execute(
        f"CREATE STREAM k_orders (id INT, ticker VARCHAR(4), price DOUBLE) WITH ({with_options(moto, 'orders', starting_position='TRIM_HORIZON')})",
        "CREATE STREAM k_out (id INT, ticker VARCHAR(4), price DOUBLE, arrived TIMESTAMP)",
        "CREATE PUMP k_pump AS INSERT INTO k_out "
        "SELECT STREAM id, ticker, price, APPROXIMATE_ARRIVAL_TIME FROM k_orders",
    )
    wait_until(lambda: server.ids("k_out") == list(range(10)), what="k_out to hold ids 0..9")
    rows = server.query("SELECT id, ticker, price, arrived, ROWTIME FROM k_out WHERE id = 4")
    assert rows[0][:3] == (4, "T1", 4.0)
    assert rows[0][3] is not None
    assert rows[0][4] == rows[0][3]  # no ROWTIME in the records: the implicit ROWTIME is the arrival
    streams = {r[0]: r for r in server.query("SHOW STREAMS")}
    assert streams["k_orders"][1] == "external"


def test_a_record_that_does_not_decode_is_counted_not_fatal(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.put("orders", [b"this is not json", {"id": "eleven", "ticker": "X", "price": 1.0}, *orders(10, 2)])
    wait_until(lambda: server.ids("k_out") == list(range(12)), what="k_out to hold ids 0..11")
    d = wait_until(lambda: (lambda d: d if d["bad_records"] == "2" else None)(describe(server, "k_pump")),
                   what="two bad records counted")  # fmt: skip
    assert d["state"] == "RUNNING"
    assert "k_orders" in d["bad_record_sample"]
    log = (servers.state / "server.log").read_text(errors="replace")
    assert "did not decode" in log


def test_restart_and_kill_lose_and_duplicate_nothing(servers: Servers, moto: Moto) -> None:
    server = servers.restart(kill=False)
    moto.put("orders", orders(12, 3))
    wait_until(lambda: server.ids("k_out") == list(range(15)), what="k_out to hold ids 0..14 after a restart")
    moto.put("orders", orders(15, 3))
    wait_until(lambda: server.ids("k_out") == list(range(18)), what="k_out to hold ids 0..17")
    server = servers.restart(kill=True)
    moto.put("orders", orders(18, 4))
    wait_until(lambda: server.ids("k_out") == list(range(22)), what="k_out to hold ids 0..21 after kill -9")
    assert pumps(server)["k_pump"][1] == "RUNNING"


def test_pump_into_a_kinesis_stream(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.create("priced", shards=2)
    server.execute(
        f"CREATE STREAM k_priced (ticker VARCHAR(4), id INT, doubled DOUBLE) WITH ({with_options(moto, 'priced', partition_key='ticker')})",
        "CREATE PUMP k_to_kinesis AS INSERT INTO k_priced SELECT STREAM ticker, id, price * 2 FROM k_orders",
    )

    def sent() -> list[dict]:
        return sorted((json.loads(b) for b in moto.read_all("priced")), key=lambda r: r["id"])

    got = wait_until(lambda: (lambda s: s if len(s) >= 22 else None)(sent()), what="22 records in priced")
    assert [r["id"] for r in got] == list(range(22))
    assert got[5] == {"ticker": "T2", "id": 5, "doubled": 10.0}
    # Counted on the way to the writer (one Spark job per batch); the delay is to the last PutRecords.
    status = wait_until(lambda: (lambda p: p if p[4] == 22 else None)(pumps(server)["k_to_kinesis"]),
                        what="rows_out 22")  # fmt: skip
    assert status[10] is not None and status[10] >= 0, status


def test_bad_options_fail_at_create_stream(servers: Servers, moto: Moto) -> None:
    server = servers.current
    e = error_of(server, "CREATE STREAM k_bad (a INT) WITH (format = 'nosuchformat', x = '1')")
    assert "k_bad" in e and "format 'nosuchformat' is not a source Spark can load" in e
    e = error_of(server, f"CREATE STREAM k_bad (a INT) WITH ({with_options(moto, 'no_such_stream')})")
    assert "k_bad" in e and "'no_such_stream'" in e and "does not exist" in e
    dead = f"http://127.0.0.1:{free_port()}"
    e = error_of(server, f"CREATE STREAM k_bad (a INT) WITH ({with_options(moto, 'orders', endpoint=dead)})")
    assert "k_bad" in e and "endpoint does not answer" in e and dead in e
    e = error_of(server, f"CREATE STREAM k_bad (a INT) WITH ({with_options(moto, 'orders', shard_count='2')})")
    assert "k_bad" in e and "unknown option shard_count" in e
    e = error_of(server, f"CREATE STREAM k_bad (a INT) WITH ({with_options(moto, 'orders', record_format='xml')})")
    assert "OJ125" in e and "k_bad" in e and "is not a record format KDA reads" in e
    e = error_of(server, f"CREATE STREAM k_bad (a INT) WITH ({with_options(moto, 'orders', partition_key='b')})")
    assert "k_bad" in e and "partition_key = 'b' names no column" in e
    assert "k_bad" not in {r[0] for r in server.query("SHOW STREAMS")}


def test_shard_split_while_running(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.create("splitting", shards=1)
    server.execute(
        f"CREATE STREAM k_split (id INT) WITH ({with_options(moto, 'splitting', starting_position='TRIM_HORIZON')})",
        "CREATE STREAM k_split_out (id INT)",
        "CREATE PUMP k_split_pump AS INSERT INTO k_split_out SELECT STREAM id FROM k_split",
    )
    moto.put("splitting", [{"id": i} for i in range(5)])
    wait_until(lambda: server.ids("k_split_out") == list(range(5)), what="ids 0..4 before the split")
    c = moto.client()
    shard = c.list_shards(StreamName="splitting")["Shards"][0]
    c.split_shard(StreamName="splitting", ShardToSplit=shard["ShardId"], NewStartingHashKey=str(2**127))
    moto.put("splitting", [{"id": i} for i in range(5, 15)])
    # moto (unlike Kinesis) moves the parent's records into the children when it splits a shard,
    # with new sequence numbers: the children hold ids 0..4 again, and the pump reads them again.
    got = wait_until(lambda: (lambda x: x if set(x) == set(range(15)) else None)(server.ids("k_split_out")),
                     what="ids 5..14 from the children")  # fmt: skip
    after = [i for i in got if i >= 5]
    assert after == list(range(5, 15))  # every record written after the split, once
    assert pumps(server)["k_split_pump"][1] == "RUNNING"


def test_a_pump_that_loses_its_source_fails_alone(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.create("doomed", shards=1)
    server.execute(
        f"CREATE STREAM k_doomed (id INT) WITH ({with_options(moto, 'doomed', starting_position='TRIM_HORIZON')})",
        "CREATE STREAM k_doomed_out (id INT)",
        "CREATE PUMP k_doomed_pump AS INSERT INTO k_doomed_out SELECT STREAM id FROM k_doomed",
    )
    moto.put("doomed", [{"id": 1}])
    wait_until(lambda: server.ids("k_doomed_out") == [1], what="the doomed pump to run")
    moto.client().delete_stream(StreamName="doomed")
    p = wait_until(lambda: (lambda p: p if p[1] == "FAILED" else None)(pumps(server)["k_doomed_pump"]),
                   what="the pump to fail")  # fmt: skip
    assert "'doomed'" in p[8] and "does not exist" in p[8], p[8]
    assert pumps(server)["k_pump"][1] == "RUNNING"
    moto.put("orders", orders(22, 1))
    wait_until(lambda: server.ids("k_out") == list(range(23)), what="k_pump to go on")


def test_any_spark_source_passes_through(servers: Servers) -> None:
    """format = 'socket' (Spark's own source, lines as a string value column) with value_format =
    'json', and format = 'rate' with its columns taken by name."""
    server = servers.current
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    conns: list[socket.socket] = []

    def serve() -> None:
        conn, _ = listener.accept()
        conns.append(conn)
        conn.sendall(b'{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\nnot json\n{"id": 3, "name": "c"}\n')

    threading.Thread(target=serve, daemon=True).start()
    try:
        server.execute(
            f"CREATE STREAM sock_src (id INT, name STRING) WITH (format = 'socket', host = '127.0.0.1', port = '{port}', value_format = 'json')",
            "CREATE STREAM sock_out (id INT, name STRING)",
            "CREATE PUMP sock_pump AS INSERT INTO sock_out SELECT STREAM id, name FROM sock_src",
        )
        wait_until(lambda: server.ids("sock_out") == [1, 2, 3], what="ids 1..3 from the socket")
        assert server.query("SELECT name FROM sock_out WHERE id = 2") == [("b",)]
        wait_until(lambda: describe(server, "sock_pump")["bad_records"] == "1", what="the line that is not JSON")
        server.execute("DROP PUMP sock_pump")
    finally:
        for c in conns:
            c.close()
        listener.close()
    e = error_of(server, "CREATE STREAM ticks (nope BIGINT) WITH (format = 'rate')")
    assert "ticks" in e and "format 'rate' has no column nope" in e
    e = error_of(server, "CREATE STREAM ticks (value BIGINT) WITH (format = 'rate', value_format = 'xml')")
    assert "OJ125" in e and "ticks" in e and "is not a record format KDA reads" in e
    server.execute(
        "CREATE STREAM ticks (value BIGINT) WITH (format = 'rate', rowsPerSecond = '5')",
        "CREATE STREAM ticks_out (value BIGINT)",
        "CREATE PUMP ticks_pump AS INSERT INTO ticks_out SELECT STREAM value FROM ticks",
    )
    wait_until(lambda: server.query("SELECT count(*) FROM ticks_out")[0][0] >= 5, what="rate rows")
    values = [r[0] for r in server.query("SELECT value FROM ticks_out ORDER BY value")]
    assert values == list(range(len(values)))
    server.execute("DROP PUMP ticks_pump")


def test_shard_merge_while_running(servers: Servers, moto: Moto) -> None:
    """Two shards merged while a pump reads them (and writes a one-shard Kinesis stream, whose
    records are in the order the pump wrote them): the parents are read to their end, then the
    merged shard from its start; each record once, each key's records in order."""
    server = servers.current
    moto.create("merging", shards=2)
    moto.create("merged_out", shards=1)
    a, b = moto.keys_by_shard("merging")

    def key(i: int) -> str:
        return a if i % 2 == 0 else b

    def put(ids: range) -> None:
        moto.put("merging", [{"id": i, "k": key(i)} for i in ids], keys=[key(i) for i in ids])

    def sent() -> list[dict]:
        return [json.loads(r) for r in moto.read_all("merged_out")]

    server.execute(
        f"CREATE STREAM k_merge (id INT, k VARCHAR(8)) WITH ({with_options(moto, 'merging', starting_position='TRIM_HORIZON')})",
        f"CREATE STREAM k_merge_out (id INT, k VARCHAR(8)) WITH ({with_options(moto, 'merged_out', partition_key='k')})",
        "CREATE PUMP k_merge_pump AS INSERT INTO k_merge_out SELECT STREAM id, k FROM k_merge",
    )
    put(range(10))
    wait_until(lambda: len(sent()) >= 10, what="ids 0..9 before the merge")
    put(range(10, 20))  # most likely not read yet when the shards close
    c = moto.client()
    low, high = sorted(c.list_shards(StreamName="merging")["Shards"],
                       key=lambda s: int(s["HashKeyRange"]["StartingHashKey"]))  # fmt: skip
    c.merge_shards(StreamName="merging", ShardToMerge=low["ShardId"], AdjacentShardToMerge=high["ShardId"])
    # moto differs from Kinesis twice here. It copies the parents' records into the merged shard
    # (so the pump reads ids 0..19 again, from there), and it puts records written after a merge
    # into the closed parents rather than the merged shard: so this test writes none after it.
    wait_until(lambda: len(sent()) >= 40, what="40 records in merged_out")
    wait_until(lambda: server.settled("k_merge_pump"), what="k_merge_pump idle")  # or a later batch adds more
    got = sent()
    assert len(got) == 40, [r["id"] for r in got]
    for k in (a, b):
        mine = [i for i in range(20) if key(i) == k]
        # Each key in order: the parent's records, then the merged shard's (moto's copies of them).
        assert [r["id"] for r in got if r["k"] == k] == mine + mine
    assert pumps(server)["k_merge_pump"][1] == "RUNNING"
    assert c.list_shards(StreamName="merging")["Shards"][-1]["ParentShardId"] == low["ShardId"]


def test_throttled_records_are_sent_again(servers: Servers, moto: Moto) -> None:
    """A proxy between the pump's writer and moto refuses a whole PutRecords, then fails half the
    records of the next two: every record reaches the target once (only failed records are sent
    again). Then every record fails: after max_put_attempts the pump is FAILED, and once started
    again it sends that batch's records."""
    server = servers.current
    moto.create("throttle_in", shards=1)
    moto.create("throttled", shards=1)
    moto.put("throttle_in", [{"id": i} for i in range(600)])  # more than one PutRecords (500 at most)
    proxy = ThrottlingProxy(moto.endpoint, ["throttle", "half", "half", "pass"]).start()
    try:
        server.execute(
            f"CREATE STREAM k_throttle_in (id INT) WITH ({with_options(moto, 'throttle_in', starting_position='TRIM_HORIZON')})",
            f"CREATE STREAM k_throttled (id INT) WITH ({with_options(moto, 'throttled', endpoint=proxy.endpoint, max_put_attempts='4')})",
            "CREATE PUMP k_throttle_pump AS INSERT INTO k_throttled SELECT STREAM id FROM k_throttle_in",
        )

        def ids_sent() -> list[int]:
            return sorted(json.loads(r)["id"] for r in moto.read_all("throttled"))

        wait_until(lambda: len(ids_sent()) >= 600, what="600 records in throttled")
        wait_until(lambda: server.settled("k_throttle_pump"), what="k_throttle_pump idle")
        assert ids_sent() == list(range(600))
        counts = proxy.counts
        assert counts.throttled_calls == 1
        assert counts.failed_records > 0
        assert counts.written_records == 600  # no record was accepted twice
        assert counts.put_calls >= 5, counts.put_calls  # 1 refused + 2 halves + what they left + the rest
        assert describe(server, "k_throttle_pump")["rows_out"] == "600"

        proxy.set_plan(["all-fail"])
        moto.put("throttle_in", [{"id": i} for i in range(600, 610)])
        p = wait_until(lambda: (lambda p: p if p[1] == "FAILED" else None)(pumps(server)["k_throttle_pump"]),
                       what="the pump to fail")  # fmt: skip
        assert "'throttled'" in p[8] and "10 record(s) still failed after 4 PutRecords attempts" in p[8], p[8]
        assert pumps(server)["k_pump"][1] == "RUNNING"
        proxy.set_plan(["pass"])
        server.execute("ALTER PUMP k_throttle_pump START")
        wait_until(lambda: len(ids_sent()) >= 610, what="ids 600..609 after the restart")
        wait_until(lambda: server.settled("k_throttle_pump"), what="k_throttle_pump idle after the restart")
        assert ids_sent() == list(range(610))  # the failed batch wrote nothing, so once each
        assert pumps(server)["k_throttle_pump"][1] == "RUNNING"
    finally:
        proxy.stop()


def test_refused_credentials_and_a_vanished_endpoint(servers: Servers, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A moto of its own that checks credentials as AWS does: refused ones fail CREATE STREAM,
    naming the stream and the options; a pump whose credentials are revoked, and then one whose
    endpoint goes away, show FAILED with the reason while the other pumps keep running."""
    server = servers.current
    guarded = Moto(tmp_path / "moto-auth.log").start()
    try:
        first, second = guarded.access_key("pumps"), guarded.access_key("pumps")
        for name, n in (("guarded1", 1), ("guarded2", 2)):
            guarded.create(name)
            guarded.put(name, [{"id": n}])
        guarded.require_credentials()

        def opts(stream: str, **creds: str) -> str:
            return with_options(guarded, stream, starting_position="TRIM_HORIZON", **creds)  # type: ignore[arg-type]

        e = error_of(
            server,
            f"CREATE STREAM k_refused (id INT) WITH ({opts('guarded1', aws_access_key_id='AKIDUNKNOWN00000', aws_secret_access_key='x')})",
        )
        assert "k_refused" in e and "'guarded1'" in e, e
        assert "credentials are missing or refused (InvalidClientTokenId)" in e and "aws_access_key_id" in e, e
        wrong_secret = {**first, "aws_secret_access_key": "wrong"}
        e = error_of(server, f"CREATE STREAM k_refused (id INT) WITH ({opts('guarded1', **wrong_secret)})")
        assert "k_refused" in e and "credentials are missing or refused (SignatureDoesNotMatch)" in e, e
        assert "k_refused" not in {r[0] for r in server.query("SHOW STREAMS")}

        server.execute(
            f"CREATE STREAM k_guarded1 (id INT) WITH ({opts('guarded1', **first)})",
            f"CREATE STREAM k_guarded2 (id INT) WITH ({opts('guarded2', **second)})",
            "CREATE STREAM k_guarded_out (id INT)",
            "CREATE PUMP k_guarded1_pump AS INSERT INTO k_guarded_out SELECT STREAM id FROM k_guarded1",
            "CREATE PUMP k_guarded2_pump AS INSERT INTO k_guarded_out SELECT STREAM id FROM k_guarded2",
        )
        wait_until(lambda: server.ids("k_guarded_out") == [1, 2], what="both guarded pumps to run")

        import boto3

        iam = boto3.client("iam", endpoint_url=guarded.endpoint, region_name=REGION, **second)
        iam.delete_access_key(UserName="pumps", AccessKeyId=first["aws_access_key_id"])
        p = wait_until(lambda: (lambda p: p if p[1] == "FAILED" else None)(pumps(server)["k_guarded1_pump"]),
                       what="the pump whose key was deleted to fail")  # fmt: skip
        assert "'guarded1'" in p[8] and "credentials are missing or refused" in p[8], p[8]
        assert pumps(server)["k_guarded2_pump"][1] == "RUNNING"

        guarded.stop()
        p = wait_until(lambda: (lambda p: p if p[1] == "FAILED" else None)(pumps(server)["k_guarded2_pump"]),
                       what="the pump whose endpoint went away to fail")  # fmt: skip
        assert "'guarded2'" in p[8] and "the endpoint does not answer" in p[8], p[8]
        assert pumps(server)["k_pump"][1] == "RUNNING"
        server.execute("DROP PUMP k_guarded1_pump", "DROP PUMP k_guarded2_pump")
    finally:
        guarded.stop()


def test_plain_select_and_insert_of_a_source_stream_are_refused(servers: Servers) -> None:
    """A stream over Kinesis stores no rows: a plain SELECT (anywhere in a statement) or an INSERT
    INTO would silently do nothing useful, so they fail saying what to write instead."""
    server = servers.current
    e = error_of(server, "SELECT * FROM k_orders")
    assert "k_orders is over a kinesis source and stores no rows" in e, e
    assert "read it with SELECT STREAM in a pump" in e, e
    e = error_of(server, "SELECT count(*) FROM k_out WHERE id IN (SELECT id FROM k_orders)")
    assert "k_orders is over a kinesis source" in e, e
    e = error_of(server, "INSERT INTO k_orders SELECT id, ticker, price, ROWTIME FROM k_out")
    assert "k_orders is over a kinesis source: INSERT INTO it would keep rows that no query reads" in e, e
    assert "CREATE PUMP p AS INSERT INTO" in e, e
    assert server.query("SELECT count(*) FROM k_out")[0][0] >= 10  # a durable stream reads as before
