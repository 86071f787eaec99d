"""Exactly once across kill -9: pumps restart from their checkpoints, and no row is lost or doubled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.server.feed import Feeder
from tests.server.serverproc import Server, free_port, wait_until

pytestmark = pytest.mark.server

KILLS = 2
ATTEMPTS = 8  # kills tried in all before giving up on landing KILLS of them in flight


def _log_ids(checkpoint: Path, log: str) -> set[int]:
    path = checkpoint / log
    return {int(p.name) for p in path.iterdir() if p.name.isdigit()} if path.exists() else set()


def in_flight(server: Server) -> dict[str, int]:
    """Each pump checkpoint (``<state>/checkpoints/<pump>``) with a batch planned (in its offset
    log) but not committed: that batch, a micro-batch in flight (or, the server dead, cut short)."""
    found = {}
    for checkpoint in sorted((server.state_dir / "checkpoints").glob("*")):
        pending = _log_ids(checkpoint, "offsets") - _log_ids(checkpoint, "commits")
        if pending:
            found[checkpoint.name] = max(pending)
    return found


#: KDA's error_stream columns, for a stream a pump sends error_stream on to.
ERROR_COLUMNS = (
    "(ERROR_TIME TIMESTAMP, ERROR_LEVEL VARCHAR(10), ERROR_NAME VARCHAR(32), MESSAGE VARCHAR(4096), "
    "DATA_ROWTIME TIMESTAMP, DATA_ROW VARCHAR(49152), PUMP_NAME VARCHAR(128))"
)


def restart(server: Server, env: dict[str, str] | None = None) -> None:
    """Starts the (stopped or killed) server again on new ports, with ``env`` (None: the test's)."""
    server.thrift_port, server.connect_port = free_port(), free_port()
    server.env = env
    server.start()


def caught_up(server: Server, pumps: int) -> bool:
    """Every pump checkpoint (``pumps`` of them) has committed every batch it planned."""
    checkpoints = list((server.state_dir / "checkpoints").glob("*"))
    return len(checkpoints) >= pumps and not in_flight(server)


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
    landed: list[dict[str, int]] = []
    attempts = 0
    try:
        while len(landed) < KILLS:
            attempts += 1
            assert attempts <= ATTEMPTS, f"only {len(landed)} of {ATTEMPTS} kills landed while a batch was in flight"
            # Rows flow through every pump first (s3 has rows past the last kill's), then the kill
            # waits for a batch in flight.
            floor = len(server.query("SELECT id FROM s3"))
            wait_until(lambda n=floor: len(server.query("SELECT id FROM s3")) > n, timeout=120, what="s3 to grow")
            wait_until(lambda: in_flight(server), timeout=60, every=0.005, what="a batch in flight")
            server.kill()  # kill -9: no shutdown hook
            # The server is dead: its checkpoints show what it left. A batch has offsets and no
            # commit iff the kill landed in flight (it may have committed after the look).
            cut = in_flight(server)
            if cut:
                landed.append(cut)
            restart(server)
    finally:
        total = feeder.stop()
    assert total > 0
    want = list(range(total))
    want2 = sorted(want + [i + 1000000 for i in want])

    # Processed everything: every row has reached s3, and every pump has committed every batch it
    # planned (a duplicate from a replayed batch would be in by then).
    wait_until(
        lambda: len(server.ids("s3")) >= len(want2) and caught_up(server, 4),
        timeout=300,
        what="every pump to catch up",
    )
    assert server.ids("s1") == want
    assert server.ids("s2") == want2
    assert server.ids("s3") == want2, f"kills landed in flight in {landed}"
    state = {r[0]: r[1] for r in server.query("SHOW PUMPS")}
    assert state == {"p1": "RUNNING", "p2": "RUNNING", "p3": "RUNNING", "p4": "RUNNING"}


def test_a_batch_written_but_not_committed_is_not_written_twice(server: Server) -> None:
    # The server halts right after pump hx's batch 1 file is in place, before Spark commits the
    # batch; after the restart Spark replays batch 1, which must find its file and add nothing.
    # Pump hy reads hout through the stream's log; the next restart halts it between its batch 1's
    # entry in hcopy's log and the file's rename: the entry goes when the log opens again, and the
    # replay writes both.
    # Both pumps divide by zero for some rows (hx: id % 4 = 0, hy: id % 3 = 0), which are left out
    # and are rows of error_stream, sent on into herr by pump he: put in place before a batch's
    # own file, they are there once whether the replay finds that file (hx) or not (hy).
    import os

    folder = server.state_dir.parent / "incoming-hx"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM hsrc (ROWTIME TIMESTAMP, id INT) WITH (format = 'json', path = '{folder}')",
        "CREATE STREAM hout (id INT)",
        "CREATE STREAM hcopy (id INT)",
        f"CREATE STREAM herr {ERROR_COLUMNS}",
        "CREATE PUMP hx AS INSERT INTO hout SELECT STREAM ROWTIME, id FROM STREAM hsrc WHERE 12 / MOD(id, 4) > 0",
        "CREATE PUMP hy AS INSERT INTO hcopy SELECT STREAM ROWTIME, id FROM STREAM hout WHERE 12 / MOD(id, 3) > 0",
        "CREATE PUMP he AS INSERT INTO herr SELECT STREAM * FROM error_stream",
    )
    from tests.server.feed import row, write_rows

    def restart_halting(halt: dict[str, str] | None) -> None:
        restart(server, {**os.environ, **halt} if halt else None)

    def restart_until_halted(halt: dict[str, str], said: str) -> None:
        # The halt may come before the server is ready: a batch that needs no new file (hy reading
        # what hx wrote before it halted) runs as the pumps are restored, before the ports open.
        try:
            restart_halting(halt)
        except AssertionError as e:
            if "exited (137) before ready" not in str(e):
                raise
        server.proc.wait(120)  # halted by the fault injection
        assert said in server.stderr()

    def ids(stream: str) -> list[int]:
        return [r[0] for r in server.query(f"SELECT id FROM {stream} ORDER BY id")]

    out = [i for i in range(15) if i % 4]
    copy = [i for i in out if i % 3]
    errors = sorted([("hx", i) for i in range(15) if i % 4 == 0] + [("hy", i) for i in out if i % 3 == 0])

    def error_rows() -> list[tuple[str, int]]:
        got = server.query("SELECT PUMP_NAME, DATA_ROW, ERROR_NAME FROM herr")
        assert {r[2] for r in got} <= {"Division by zero"}
        return sorted((p, json.loads(bytes.fromhex(d))["id"]) for p, d, _ in got)

    write_rows(folder, "a", [row(i) for i in range(5)])
    wait_until(lambda: ids("hout") == [1, 2, 3] and ids("hcopy") == [1, 2], what="batch 0")
    server.stop()
    restart_halting({"OVERJOIN_TEST_HALT_AFTER_RENAME": "hx:1"})
    write_rows(folder, "b", [row(i) for i in range(5, 12)])
    server.proc.wait(120)  # halted by the fault injection
    assert "halting after pump hx wrote batch 1" in server.stderr()
    restart_until_halted({"OVERJOIN_TEST_HALT_BEFORE_RENAME": "hy:1"}, "halting after pump hy logged batch 1")
    restart_halting(None)
    write_rows(folder, "c", [row(i) for i in range(12, 15)])
    # Processed everything: the rows are in and both pumps have committed every batch they planned.
    wait_until(
        lambda: len(ids("hcopy")) >= len(copy) and len(error_rows()) >= len(errors) and caught_up(server, 3),
        what="the rows after the replays",
    )
    assert ids("hout") == out
    assert ids("hcopy") == copy
    assert error_rows() == errors
    log = (server.state_dir / "server.log").read_text(errors="replace")
    assert "batch 1 is already in" in log
    assert "(a crash before its rename): taken out" in log


def test_a_reader_of_error_stream_begun_by_an_earlier_release_keeps_running(server: Server) -> None:
    # A release before this one read error_stream from the schema's source streams only; in this
    # one it also reads the schema's pumps' rows that divide by zero, one more source. Spark refuses
    # a checkpoint whose sources differ in number, so a pump whose checkpoint the earlier release
    # began goes on reading error_stream as it did (and the server log says how to start it over).
    # The earlier release is the setting that leaves that source out, taken out of the pump's
    # saved definition between two lives of the server, as a server upgraded in place finds it.
    folder = server.state_dir.parent / "incoming-u"
    folder.mkdir()
    server.execute(
        f"CREATE STREAM usrc (id INT) WITH (format = 'json', path = '{folder}', record_row_path = '$')",
        f"CREATE STREAM uerr {ERROR_COLUMNS}",
        "SET spark.overjoin.errorStream.pumpRows = false",
        "CREATE PUMP ue AS INSERT INTO uerr SELECT STREAM * FROM error_stream",
    )

    def bad(name: str) -> None:
        (folder / f".{name}").write_text("this record is not JSON\n")
        (folder / f".{name}").rename(folder / f"{name}.json")

    def names() -> list[str]:
        return sorted(r[0] for r in server.query("SELECT ERROR_NAME FROM uerr"))

    bad("r1")
    wait_until(lambda: len(names()) == 1, what="the first error row")
    server.stop()
    saved = server.state_dir / "pumps" / "ue.properties"
    saved.write_text("".join(line for line in saved.read_text().splitlines(True) if "errorStream.pumpRows" not in line))
    restart(server)
    bad("r2")
    wait_until(lambda: len(names()) == 2, what="the second error row, after the upgrade")
    assert names() == ["Parse error", "Parse error"]
    state = {r[0]: r[1] for r in server.query("SHOW PUMPS")}
    assert state["ue"] == "RUNNING"
    log = (server.state_dir / "server.log").read_text(errors="replace")
    assert "pump ue: its checkpoint reads error_stream as a release before" in log
    # A source stream that decodes records created in the schema changes error_stream's sources
    # again: at its next start the pump says so and how to start it over, not Spark's assertion.
    folder2 = server.state_dir.parent / "incoming-u2"
    folder2.mkdir()
    server.execute(f"CREATE STREAM usrc2 (id INT) WITH (format = 'json', path = '{folder2}', record_row_path = '$')")
    server.stop()
    restart(server)
    described = dict(server.query("DESCRIBE PUMP ue"))
    assert described["state"] == "FAILED"
    assert (
        "reads error_stream, whose sources have changed since its checkpoint began (1 then, 3 now" in described["error"]
    )
    assert "start the pump over" in described["error"]
