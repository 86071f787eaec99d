"""A pump that writes a batch into a stream wakes the pumps that read it (docs/operator.md, "An
application's pumps on one server"): a chain passes a row on when it is written, not at each hop's
next trigger.

The server here triggers its pumps every ten minutes. A pump runs its first micro-batch when it
starts and then waits for its next trigger, so without wakes a row could cross the first hop of a
chain (the pump that reads the source folder, started after the row was written) and then wait ten
minutes at each later hop. Every assertion below waits at most two minutes.
"""

from __future__ import annotations

import pytest

from tests.server.feed import row, write_rows
from tests.server.serverproc import Server, wait_until

pytestmark = pytest.mark.server

TEN_MINUTES_MS = 600_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    srv = Server(tmp_path_factory.mktemp("wakeups") / "state", extra=["--trigger-ms", str(TEN_MINUTES_MS)]).start()
    yield srv
    srv.stop()


def rows_out(server: Server) -> dict[str, int]:
    return {r[0]: r[4] for r in server.query("SHOW PUMPS")}


def test_a_chain_of_pumps_passes_rows_on_when_they_are_written(server: Server) -> None:
    incoming = server.state_dir.parent / "incoming"
    incoming.mkdir()
    server.execute(
        f"CREATE STREAM readings (ROWTIME TIMESTAMP, id INT, name STRING) WITH (format = 'json', path = '{incoming}')",
        "CREATE STREAM evens (id INT, name STRING)",
        "CREATE STREAM scaled (id INT, tenfold INT)",
        "CREATE STREAM named (id INT, name STRING)",
        "CREATE STREAM ends (id INT, tenfold INT)",
        # The readers first: each runs its first micro-batch now, over nothing, then waits.
        "CREATE PUMP hop3 AS INSERT INTO ends SELECT STREAM ROWTIME, id, tenfold FROM STREAM scaled WHERE tenfold > 0",
        "CREATE PUMP hop2 AS INSERT INTO scaled SELECT STREAM ROWTIME, id, id * 10 FROM STREAM evens",
        # A second reader of the same stream is woken too.
        "CREATE PUMP side AS INSERT INTO named SELECT STREAM ROWTIME, id, UPPER(name) FROM STREAM evens",
    )
    write_rows(incoming, "a", [row(i, name=f"n{i}") for i in range(10)])
    server.execute(
        "CREATE PUMP hop1 AS INSERT INTO evens SELECT STREAM ROWTIME, id, name FROM STREAM readings WHERE MOD(id, 2) = 0"
    )
    wait_until(lambda: server.ids("ends") == [2, 4, 6, 8], timeout=120, what="the chain's last stream")
    assert server.query("SELECT id, tenfold FROM ends WHERE id = 6") == [(6, 60)]
    wait_until(lambda: server.ids("named") == [0, 2, 4, 6, 8], timeout=120, what="the second reader's stream")
    assert server.query("SELECT name FROM named WHERE id = 4") == [("N4",)]
    assert rows_out(server) == {"hop1": 5, "hop2": 5, "hop3": 4, "side": 5}

    # Again after the first hop is stopped and started (its first batch reads the new file): the
    # later hops are woken from their ten-minute wait once more, each row still written once.
    write_rows(incoming, "b", [row(i, name=f"n{i}") for i in range(10, 16)])
    server.execute("ALTER PUMP hop1 STOP", "ALTER PUMP hop1 START")
    wait_until(lambda: server.ids("ends") == [2, 4, 6, 8, 10, 12, 14], timeout=120, what="the second file at the end")
    wait_until(lambda: server.ids("named") == [0, 2, 4, 6, 8, 10, 12, 14], timeout=120, what="the second file, side")
    assert server.ids("evens") == [0, 2, 4, 6, 8, 10, 12, 14]
    assert server.ids("scaled") == [0, 2, 4, 6, 8, 10, 12, 14]
