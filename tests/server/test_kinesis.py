"""Streams over Kinesis data streams (docs/server.md) against moto's Kinesis server on loopback.

One moto server and one `overjoin server` for the module; the restart test replaces the server by a
new one on the same state directory, which the tests after it use.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.server.kinesis import CREDENTIALS, REGION, Moto
from tests.server.serverproc import Server, wait_until

pytestmark = pytest.mark.server

pytest.importorskip("boto3")
pytest.importorskip("moto")


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
    pytest.importorskip("pyhive")
    s = Servers(tmp_path_factory.mktemp("kserver") / "state")
    yield s
    s.current.stop()


def with_options(moto: Moto, stream: str, **extra: str) -> str:
    opts = {"format": "kinesis", "stream": stream, "region": REGION, "endpoint": moto.endpoint, **extra}
    return ", ".join(f"{k} = '{v}'" for k, v in opts.items())


def ids(server: Server, stream: str) -> list[int]:
    return [r[0] for r in server.query(f"SELECT id FROM {stream} ORDER BY id")]


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
    wait_until(lambda: ids(server, "k_out") == list(range(10)), what="k_out to hold ids 0..9")
    rows = server.query("SELECT id, ticker, price, arrived, ROWTIME FROM k_out WHERE id = 4")
    assert rows[0][:3] == (4, "T1", 4.0)
    assert rows[0][3] is not None
    assert rows[0][4] == rows[0][3]  # no ROWTIME in the records: the implicit ROWTIME is the arrival
    streams = {r[0]: r for r in server.query("SHOW STREAMS")}
    assert streams["k_orders"][1] == "external"


def test_a_record_that_does_not_decode_is_counted_not_fatal(servers: Servers, moto: Moto) -> None:
    server = servers.current
    moto.put("orders", [b"this is not json", {"id": "eleven", "ticker": "X", "price": 1.0}, *orders(10, 2)])
    wait_until(lambda: ids(server, "k_out") == list(range(12)), what="k_out to hold ids 0..11")
    d = wait_until(lambda: (lambda d: d if d["bad_records"] == "2" else None)(describe(server, "k_pump")),
                   what="two bad records counted")  # fmt: skip
    assert d["state"] == "RUNNING"
    assert "k_orders" in d["bad_record_sample"]
    log = (servers.state / "server.log").read_text(errors="replace")
    assert "did not decode" in log


def test_restart_and_kill_lose_and_duplicate_nothing(servers: Servers, moto: Moto) -> None:
    server = servers.restart(kill=False)
    moto.put("orders", orders(12, 3))
    wait_until(lambda: ids(server, "k_out") == list(range(15)), what="k_out to hold ids 0..14 after a restart")
    moto.put("orders", orders(15, 3))
    wait_until(lambda: ids(server, "k_out") == list(range(18)), what="k_out to hold ids 0..17")
    server = servers.restart(kill=True)
    moto.put("orders", orders(18, 4))
    wait_until(lambda: ids(server, "k_out") == list(range(22)), what="k_out to hold ids 0..21 after kill -9")
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
