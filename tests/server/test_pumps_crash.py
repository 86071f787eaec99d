"""Exactly once across kill -9: pumps restart from their checkpoints, and no row is lost or doubled."""

from __future__ import annotations

import random
import time

import pytest

from tests.server.feed import Feeder
from tests.server.serverproc import Server, free_port, wait_until

pytestmark = pytest.mark.server

KILLS = 2


def test_kill_9_and_restart_lose_and_duplicate_nothing(server: Server) -> None:
    folder = server.state_dir.parent / "incoming"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM src (ROWTIME TIMESTAMP, id INT) WITH (format = 'json', path = '{folder}')",
        "CREATE STREAM s1 (id INT)",
        "CREATE STREAM s2 (id INT)",
        "CREATE STREAM s3 (id INT)",
        "CREATE PUMP p1 AS INSERT INTO s1 SELECT STREAM ROWTIME, id FROM STREAM src",
        "CREATE PUMP p2 AS INSERT INTO s2 SELECT STREAM ROWTIME, id FROM STREAM s1",
        # a second writer into s2, with ids of its own
        "CREATE PUMP p3 AS INSERT INTO s2 SELECT STREAM ROWTIME, id + 1000000 FROM STREAM src",
        "CREATE PUMP p4 AS INSERT INTO s3 SELECT STREAM ROWTIME, id FROM STREAM s2",
    )
    feeder = Feeder(folder, per_file=20, every=0.3)
    feeder.start()
    rng = random.Random(10)
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(6, 12))
            server.kill()  # kill -9: no shutdown hook, batches in flight
            server.thrift_port, server.connect_port = free_port(), free_port()
            server.start()
    finally:
        total = feeder.stop()
    assert total > 0
    want = list(range(total))
    want2 = sorted(want + [i + 1000000 for i in want])

    def ids(stream: str) -> list[int]:
        return [r[0] for r in server.query(f"SELECT id FROM {stream} ORDER BY id")]

    wait_until(lambda: len(ids("s3")) >= len(want2), timeout=300, every=2, what="s3 to catch up")
    time.sleep(3)  # anything duplicated late would show now
    assert ids("s1") == want
    assert ids("s2") == want2
    assert ids("s3") == want2
    state = {r[0]: r[1] for r in server.query("SHOW PUMPS")}
    assert state == {"p1": "RUNNING", "p2": "RUNNING", "p3": "RUNNING", "p4": "RUNNING"}


def test_a_batch_written_but_not_committed_is_not_written_twice(server: Server) -> None:
    # The server halts right after pump hx's batch 1 file is in place, before Spark commits the
    # batch; after the restart Spark replays batch 1, which must find its file and add nothing.
    import os

    folder = server.state_dir.parent / "incoming-hx"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM hsrc (ROWTIME TIMESTAMP, id INT) WITH (format = 'json', path = '{folder}')",
        "CREATE STREAM hout (id INT)",
        "CREATE PUMP hx AS INSERT INTO hout SELECT STREAM ROWTIME, id FROM STREAM hsrc",
    )
    from tests.server.feed import row, write_rows

    write_rows(folder, "a", [row(i) for i in range(5)])
    wait_until(lambda: len(server.query("SELECT id FROM hout")) == 5, what="batch 0")
    server.stop()
    server.thrift_port, server.connect_port = free_port(), free_port()
    server.env = {**os.environ, "OVERJOIN_TEST_HALT_AFTER_RENAME": "hx:1"}
    server.start()
    write_rows(folder, "b", [row(i) for i in range(5, 12)])
    server.proc.wait(120)  # halted by the fault injection
    assert "halting after pump hx wrote batch 1" in server.stderr()
    server.env = None
    server.thrift_port, server.connect_port = free_port(), free_port()
    server.start()
    write_rows(folder, "c", [row(i) for i in range(12, 15)])
    wait_until(lambda: len(server.query("SELECT id FROM hout")) >= 15, what="the rows after the replay")
    time.sleep(3)
    assert [r[0] for r in server.query("SELECT id FROM hout ORDER BY id")] == list(range(15))
    assert "batch 1 is already in" in (server.state_dir / "server.log").read_text(errors="replace")
