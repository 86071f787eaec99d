"""KDA and s-Server programs pasted into `overjoin server` as written (docs/semantics.md §10):
implicit ROWTIME and APPROXIMATE_ARRIVAL_TIME on source streams, `"ROWTIME"` selected by a pump,
KDA's rule for filling the target, multi-line quoted column lists and s-Server's schema statements.
The programs are the files of `tests/corpus/programs/`: ours, each written in the style of a
published program and exercising what it taught (their README names the published program); each
test's docstring says which construct it checks and where it was seen. Only their source streams,
which KDA configures outside SQL, are declared here. Expected rows come from the input rows
(`tests/reference_model.py`, `Counter`, `re`, sets), never from a run."""

from __future__ import annotations

import calendar
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests import reference_model as m
from tests.corpus_loader import CORPUS_DIR, load_corpus
from tests.server.feed import write_rows
from tests.server.kda import all_programs, program, statements
from tests.server.serverproc import Server, wait_until

pytestmark = pytest.mark.server

DAY = datetime(2024, 1, 1)


def at(clock: str) -> datetime:
    h, mi, s = (int(x) for x in clock.split(":"))
    return DAY.replace(hour=h, minute=mi, second=s)


def arrival(path: Path) -> datetime:
    """A file's arrival in its folder (its modification time), as a UTC wall-clock time."""
    return datetime.fromtimestamp(os.stat(path).st_mtime, tz=timezone.utc).replace(tzinfo=None)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_micros(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture(autouse=True)
def _pumps_dropped_after_each_test(server: Server):  # type: ignore[no-untyped-def]
    """Each test's pumps go when it ends, so that the server runs only the pumps of the test at hand
    (each running pump costs a share of the two cores)."""
    yield
    for r in server.query("SHOW PUMPS"):
        server.execute(f'DROP PUMP "{r[-1]}"."{r[0]}"')


def run(server: Server, schema: str, setup: list[str], text: str) -> None:
    """Runs `text` statement by statement in one JDBC session of its own schema, after `setup`."""
    conn = server.hive()
    try:
        cur = conn.cursor()
        for s in [f"CREATE DATABASE IF NOT EXISTS {schema}", f"USE {schema}", *setup, *statements(text)]:
            try:
                cur.execute(s)
            except Exception as e:  # the statement that failed, as written, in the failure
                raise AssertionError(f"statement failed:\n{s}\n-> {str(e)[:2000]}") from None
        cur.close()
    finally:
        conn.close()


# ---- source streams (what KDA configures outside SQL) ---------------------------------------------

#: The garage's gate events: a ticket and the lane that read it (one of the two flags is set).
GARAGE_SOURCE = (
    'CREATE STREAM "GARAGE_SQL_STREAM_001" ("ticketid" VARCHAR(8), "entry_lane" VARCHAR(8), "exit_lane" VARCHAR(8)) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Turnstile taps, with no ROWTIME column declared.
TURNSTILE_SOURCE = (
    'CREATE STREAM "TURNSTILE_SQL_STREAM_001" ("STATION" VARCHAR(8), "FARE" DOUBLE) '
    "WITH (format = 'json', path = '{folder}', rowtime = 'ROWTIME')"
)

#: Greenhouse probes: a reading and its drift since the last one.
SENSOR_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (SENSOR_ID VARCHAR(6), BAY VARCHAR(16), DRIFT REAL, READING REAL) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Support calls, by queue.
CALLS_SOURCE = (
    'CREATE STREAM "CALLS_SQL_STREAM_001" ("QUEUE_NAME" VARCHAR(8), "CALLER" VARCHAR(16)) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Badge swipes, stamped with their reader's batch time.
BADGE_SOURCE = (
    'CREATE STREAM "BADGE_SQL_STREAM_001" ("READER_TIME" TIMESTAMP, "DOOR" VARCHAR(8)) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Flights as a departures board reports them.
FLIGHT_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (FLIGHT_CODE VARCHAR(6), ROUTE VARCHAR(20), DELAY REAL, FARE REAL) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Parcel lockers, with a Unix time in milliseconds.
LOCKER_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (locker_id VARCHAR(8), site VARCHAR(32), temp_c REAL, '
    "opened_at_ms BIGINT, charge REAL) WITH (format = 'json', path = '{folder}')"
)

#: A web server's requests: the client and its user agent.
AGENT_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (CLIENT_IP VARCHAR(16), AGENT VARCHAR(32), BYTES INTEGER) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Web servers' access log lines, one per record.
ACCESS_LOG_SOURCE = (
    "CREATE STREAM \"SOURCE_SQL_STREAM_001\" (\"access_line\" VARCHAR(256)) WITH (format = 'json', path = '{folder}')"
)


#: Fuel stations' price reports.
PLAYER_ACTIONS_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("player_id" VARCHAR(16), "server_clock" VARCHAR(20)) '
    "WITH (format = 'json', path = '{folder}')"
)

PRICE_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (station_id VARCHAR(8), grade VARCHAR(8), delta DOUBLE, price DOUBLE) '
    "WITH (format = 'json', path = '{folder}')"
)

#: `error_stream` sent on to a stream of its own, as a KDA application's error_stream output.
DIVISION_ERRORS_OUTPUT = """
CREATE OR REPLACE STREAM "DIVISION_ERRORS" (
    ERROR_TIME      TIMESTAMP,
    ERROR_LEVEL     VARCHAR(10),
    ERROR_NAME      VARCHAR(32),
    MESSAGE         VARCHAR(4096),
    DATA_ROWTIME    TIMESTAMP,
    DATA_ROW        VARCHAR(49152),
    PUMP_NAME       VARCHAR(128));

CREATE OR REPLACE PUMP "ERRORS_PUMP" AS INSERT INTO "DIVISION_ERRORS"
    SELECT STREAM * FROM error_stream;

CREATE OR REPLACE STREAM "ERROR_SHARES" (PUMP_NAME VARCHAR(128), SHARE INTEGER);

-- divides by zero for one pump's rows ('price_moves_pump' is 16 characters long)
CREATE OR REPLACE PUMP "ERROR_SHARE_PUMP" AS INSERT INTO "ERROR_SHARES"
    SELECT STREAM PUMP_NAME, 100 / (CHAR_LENGTH(PUMP_NAME) - 16) FROM error_stream;
"""

#: Machine-tool spindle speeds.
VAN_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("VAN_ID" VARCHAR(8), "SPEED_KMH" INTEGER, "ENGINE_TEMP_C" INTEGER) '
    "WITH (format = 'json', path = '{folder}')"
)

FORKLIFT_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("aisle_x" DOUBLE, "aisle_y" DOUBLE, "forklift" VARCHAR(8)) '
    "WITH (format = 'json', path = '{folder}')"
)

SPINDLE_SOURCE = (
    'CREATE STREAM "SPINDLE_SQL_STREAM_001" ("spindleRpm" INTEGER, "machineMode" VARCHAR(16)) '
    "WITH (format = 'json', path = '{folder}')"
)

#: Page views of a web site.
CLICKS_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (PAGE_PATH VARCHAR(16), CLIENT_ID VARCHAR(8), BYTES INTEGER) '
    "WITH (format = 'json', path = '{folder}')"
)

#: The hotel's stays and charges in one stream, and its table of services.
HOTEL_COLUMNS = (
    '"stayId" INTEGER, "recordKind" VARCHAR(16), "nightlyRate" DECIMAL(6,2), "stayStatus" VARCHAR(10), '
    '"checkInDate" TIMESTAMP, "guestName" VARCHAR(32), "roomNumber" VARCHAR(8), "hotelCity" VARCHAR(32), '
    '"serviceId" INTEGER, "chargeAmount" DECIMAL(6,2), "chargeStatus" VARCHAR(10), "chargeUnits" INTEGER'
)


# ---- stream-to-stream joins, as in the KDA SQL reference's JOIN clause examples -------------------

#: (ROWTIME, ticketid) of the garage's entries and of its exits, one source stream: exits before,
#: at and after their entry, inside and outside either window, repeated, and without an entry.
ENTRIES = [("08:15:00", 501), ("08:15:10", 502), ("08:15:40", 503), ("08:16:30", 504), ("08:17:00", 508),
           ("08:17:05", 500), ("08:17:05", 506)]  # fmt: skip
EXITS = [("08:15:00", 500), ("08:16:00", 502), ("08:16:10", 508), ("08:16:20", 502), ("08:16:30", 504),
         ("08:17:30", 501), ("08:18:00", 507), ("08:18:30", 503), ("08:18:50", 506)]  # fmt: skip
FLUSH = at("11:30:00")  # one more entry and exit, far later: the watermark passes every window
FLUSH_TICKET = 9999

TWO_MINUTES = m.Window.range(timedelta(minutes=2))
NINETY_SECONDS = m.Window.range(timedelta(seconds=90))
#: Per program (kda_join_<name>.sql): the join, the exits' window, the output stream and its
#: columns after "matchedat" (the entries' window is always two minutes).
JOINS = {
    "inner_current_row": ("INNER", m.CURRENT_ROW, "DROPOFF_STREAM", ("x.ticketid", "x.ROWTIME", "e.ROWTIME")),
    "inner_both_windowed": ("INNER", NINETY_SECONDS, "DROPOFF_STREAM", ("x.ticketid", "x.ROWTIME", "e.ROWTIME")),
    "right_current_row": ("RIGHT", m.CURRENT_ROW, "EXIT_AUDIT_STREAM", ("x.ticketid", "e.ROWTIME")),
    "right_both_windowed": ("RIGHT", NINETY_SECONDS, "EXIT_AUDIT_STREAM", ("x.ticketid", "x.ROWTIME", "e.ROWTIME")),
    "left_current_row": ("LEFT", m.CURRENT_ROW, "ENTRY_AUDIT_STREAM", ("e.ticketid", "e.ROWTIME")),
    "left_both_windowed": ("LEFT", NINETY_SECONDS, "ENTRY_AUDIT_STREAM", ("x.ticketid", "x.ROWTIME", "e.ROWTIME")),
}


def expected_join_rows(name: str) -> Counter:
    kind, exits_window, _, columns = JOINS[name]
    entries = [{"ticketid": i, "ROWTIME": at(t)} for t, i in ENTRIES]
    exits = [{"ticketid": i, "ROWTIME": at(t)} for t, i in EXITS]
    out = m.evaluate(
        [m.Input("e", entries, "ROWTIME", TWO_MINUTES), m.Input("x", exits, "ROWTIME", exits_window)],
        [m.Join(kind, m.equi("e", "ticketid", "x", "ticketid"))],
    )

    def value(o: m.Out, ref: str) -> object:
        alias, column = ref.split(".")
        row = o.rows[alias]
        return None if row is None else row[column]

    return Counter((o.rowtime, *(value(o, c) for c in columns)) for o in out)


@pytest.mark.parametrize("name", sorted(JOINS))
def test_kda_join_program(server: Server, name: str) -> None:
    """Stream-to-stream joins as in the KDA SQL reference's JOIN clause examples (its six programs:
    inner, right and left joins, the right input without a window or with one), each a whole
    program: two streams pumped from one source stream by a filter on a flag column, `"ROWTIME"`
    selected into a timestamp column, then the join's pump selecting `ROWTIME`, `x.rowtime` and
    `e.ROWTIME`; against the reference model over the same rows."""
    folder = server.state_dir.parent / f"kda_join_{name}"
    db = f"kda_join_{name}"
    # A late row would be dropped by KDA too; lateness keeps the comparison exact whichever of the
    # two chained pumps' files the join reads first.
    run(server, db, ["SET spark.overjoin.lateness = 1 hour", GARAGE_SOURCE.format(folder=folder)],
        program(f"kda_join_{name}.sql"))  # fmt: skip
    records = [{"ROWTIME": iso(at(t)), "ticketid": str(i), "entry_lane": "3"} for t, i in ENTRIES]
    records += [{"ROWTIME": iso(at(t)), "ticketid": str(i), "exit_lane": "4"} for t, i in EXITS]
    # Lanes the program does not read: in neither stream.
    records.append({"ROWTIME": iso(at("08:16:00")), "ticketid": "777", "entry_lane": "5", "exit_lane": "6"})
    records += [
        {"ROWTIME": iso(FLUSH), "ticketid": str(FLUSH_TICKET), "entry_lane": "3"},
        {"ROWTIME": iso(FLUSH), "ticketid": str(FLUSH_TICKET), "exit_lane": "4"},
    ]
    write_rows(folder, "records", records)

    expected = expected_join_rows(name)
    stream = JOINS[name][2]

    def output() -> Counter:
        rows = server.query(f"SELECT * FROM {db}.{stream}")
        return Counter(tuple(r[:-1]) for r in rows if r[0] < FLUSH - timedelta(hours=1))

    wait_until(lambda: sum(output().values()) >= sum(expected.values()), what=f"{name}'s output rows")
    assert output() == expected
    # Each output row keeps the join's ROWTIME (its first column here) as its own.
    assert all(r[0] == r[-1] for r in server.query(f"SELECT * FROM {db}.{stream}"))
    # The first pumps: "ROWTIME" selected as a value fills entrytime/exittime; the row's ROWTIME is
    # the source row's.
    entries = server.query(
        f"SELECT ticketid, entrytime, ROWTIME FROM {db}.GATE_IN_STREAM WHERE ticketid < {FLUSH_TICKET}"
    )
    assert sorted(entries) == sorted((i, at(t), at(t)) for t, i in ENTRIES)
    exits = server.query(
        f"SELECT ticketid, exittime, ROWTIME FROM {db}.GATE_OUT_STREAM WHERE ticketid < {FLUSH_TICKET}"
    )
    assert sorted(exits) == sorted((i, at(t), at(t)) for t, i in EXITS)


# ---- a pump's select list fills its target (KDA's rule) ------------------------------------------


def test_select_list_fills_the_target_whatever_its_items_are_named(server: Server) -> None:
    folder = server.state_dir.parent / "fill"
    run(server, "fill", [
        "SET spark.overjoin.lateness = 1 hour",
        f"CREATE STREAM shipments (orderId INT) WITH (format = 'json', path = '{folder}/s')",
        f"CREATE STREAM orders (orderId INT) WITH (format = 'json', path = '{folder}/o')",
    ], """
        CREATE STREAM "DEST" (orderId INT, orderTime TIMESTAMP);
        CREATE STREAM "DEST3" (orderId INT, orderTime TIMESTAMP);
        CREATE PUMP "P1" AS INSERT INTO "DEST"
          SELECT STREAM o.orderId, o.ROWTIME AS orderTime FROM shipments AS s
          JOIN orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId;
        CREATE PUMP "P3" AS INSERT INTO "DEST3"
          SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime FROM shipments AS s
          JOIN orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId;
    """)  # fmt: skip
    write_rows(
        folder / "o",
        "o",
        [{"ROWTIME": iso(at("10:00:00")), "orderId": 1}, {"ROWTIME": iso(at("10:10:00")), "orderId": 2}],
    )
    write_rows(
        folder / "s",
        "s",
        [{"ROWTIME": iso(at("10:30:00")), "orderId": 1}, {"ROWTIME": iso(at("10:20:00")), "orderId": 2}],
    )
    # The row's ROWTIME is the join's (the shipment's, §4); orderTime is the order's own.
    want = [(1, at("10:00:00"), at("10:30:00")), (2, at("10:10:00"), at("10:20:00"))]
    for dest in ("DEST", "DEST3"):
        wait_until(lambda d=dest: len(server.query(f"SELECT * FROM fill.{d}")) >= 2, what=f"rows in {dest}")
        assert sorted(server.query(f"SELECT orderId, orderTime, ROWTIME FROM fill.{dest}")) == want
    with pytest.raises(Exception) as info:
        server.execute(
            "USE fill",
            "CREATE PUMP p_bad AS INSERT INTO DEST SELECT STREAM o.orderId FROM orders AS o",
        )
    message = str(info.value)
    assert "pump p_bad: the query returns 1 column(s) (orderId) but fill.DEST takes 2 (orderId, orderTime)" in message
    assert "one item more named ROWTIME" in message


# ---- source streams as KDA declares them ---------------------------------------------------------

#: (ROWTIME, STATION, FARE) of the turnstile's taps; one fare (1.25) is on one tap only.
TAPS = [("07:00:03", "PARK", 2.5), ("07:00:21", "PARK", 2.5), ("07:00:29", "MILL", 1.25), ("07:00:41", "PARK", 2.5),
        ("07:01:15", "MILL", 2.5), ("07:01:16", "MILL", 2.5), ("07:02:10", "DOCK", 2.5)]  # fmt: skip


def test_source_stream_without_rowtime_gets_kdas_implicit_columns(server: Server) -> None:
    """STEP over a source's ROWTIME and over its APPROXIMATE_ARRIVAL_TIME, in the select list and
    in GROUP BY, into a target column named "APPROXIMATE_ARRIVAL_TIME", as in the developer guide's
    "Timestamps and the ROWTIME Column" program; over a source stream that declares neither:
    ROWTIME from the records' field (the arrival where a record has none), APPROXIMATE_ARRIVAL_TIME
    from the file's arrival. The model counts the taps per station and half minute."""
    folder = server.state_dir.parent / "ts"
    run(server, "ts", [TURNSTILE_SOURCE.format(folder=folder)], program("kda_step_rowtime_and_arrival_time.sql"))
    write_rows(folder, "a", [{"ROWTIME": iso(at(t)), "STATION": s, "FARE": f} for t, s, f in TAPS])
    arrived = arrival(folder / "a.json")
    half = timedelta(seconds=30)
    counts = Counter((m.step_floor(at(t), half), s) for t, s, _ in TAPS)
    watermark = max(at(t) for t, _, _ in TAPS)
    assert all(start + half != watermark for start, _ in counts)  # no window ends on the watermark
    # Windows that end after the watermark (the last rowtime) stay open.
    want = sorted(
        (start, m.step_floor(arrived, half), s, n) for (start, s), n in counts.items() if start + half < watermark
    )
    assert want and len(want) < len(counts)
    query = "SELECT bucket_start, APPROXIMATE_ARRIVAL_TIME, station, tap_count FROM ts.STATION_TAPS"
    wait_until(lambda: len(server.query(query)) >= len(want), what="the closed windows")
    assert sorted(server.query(query)) == want
    # A plain SELECT of the source: the records' ROWTIME, or the arrival where a record has none.
    write_rows(folder, "b", [{"STATION": "NONE", "FARE": 0.5}])
    b_arrived = arrival(folder / "b.json")
    got = server.query(
        "SELECT STATION, ROWTIME, APPROXIMATE_ARRIVAL_TIME FROM ts.TURNSTILE_SQL_STREAM_001 WHERE FARE = 0.5"
    )
    assert len(got) == 1 and got[0][0] == "NONE"
    assert abs((got[0][1] - b_arrived).total_seconds()) < 0.01 and got[0][1] == got[0][2]
    # SELECT * returns the declared columns and ROWTIME, as KDA's `*` leaves its system columns out.
    star = server.query("SELECT * FROM ts.TURNSTILE_SQL_STREAM_001 WHERE FARE = 1.25")
    assert star == [(s, f, at(t)) for t, s, f in TAPS if f == 1.25]


# ---- multi-line, tab-indented column lists, a reference table, a join of two streams -------------


def test_enrichment_program_with_tab_indented_column_lists(server: Server) -> None:
    """A whole application in the style of the published orders/items setup (GitHub,
    rvvittal/kinesis-streaming-joins): streams with multi-line quoted column lists (one name
    written against its type), pumps whose INSERT column lists are indented with tabs and spaces and
    name the columns in another order than the stream (one left out, so NULL), a LEFT JOIN with a
    reference table, then a join of two windowed streams whose `ROWTIME` fills the first column.
    The model pairs the records in Python: a charge with the stays of its stayId within ten minutes,
    the later of the two being the row's ROWTIME; a service missing from the table is NULL."""
    folder = server.state_dir.parent / "oi"
    services_dir = folder / "services"
    services_dir.mkdir(parents=True)
    services = {42: "minibar", 7: "laundry"}
    (services_dir / "s.csv").write_text("serviceId,serviceName\n" + "".join(f"{k},{v}\n" for k, v in services.items()))
    run(server, "oi", [
        "SET spark.overjoin.lateness = 1 hour",
        "CREATE TABLE services (`serviceId` INT, `serviceName` STRING) USING csv "
        f"OPTIONS (path '{services_dir}', header 'true')",
        f"CREATE STREAM \"HOTEL_SQL_STREAM_001\" ({HOTEL_COLUMNS}) WITH (format = 'json', path = '{folder}/src')",
    ], program("kda_enrich_with_reference_table_and_join.sql"))  # fmt: skip
    stays: list[dict[str, Any]] = [
        {"stayId": 1, "nightlyRate": 129.5, "stayStatus": "BOOKED", "checkInDate": iso(at("14:00:00")),
         "guestName": "Ines", "roomNumber": "412", "hotelCity": "Lisbon", "recordKind": "Stay",
         "ROWTIME": iso(at("14:00:00"))},
        {"stayId": 3, "nightlyRate": 88.0, "stayStatus": "BOOKED", "checkInDate": iso(at("14:02:00")),
         "guestName": "Tomas", "roomNumber": "107", "hotelCity": "Porto", "recordKind": "Stay",
         "ROWTIME": iso(at("14:02:00"))},
    ]  # fmt: skip
    charges: list[dict[str, Any]] = [
        {"stayId": 1, "serviceId": 42, "chargeAmount": 18.75, "chargeStatus": "POSTED", "chargeUnits": 2,
         "recordKind": "Charge", "ROWTIME": iso(at("14:03:00"))},
        {"stayId": 1, "serviceId": 99, "chargeAmount": 5.0, "chargeStatus": "POSTED", "chargeUnits": 1,
         "recordKind": "Charge", "ROWTIME": iso(at("14:04:30"))},
        {"stayId": 2, "serviceId": 7, "chargeAmount": 12.0, "chargeStatus": "OPEN", "chargeUnits": 3,
         "recordKind": "Charge", "ROWTIME": iso(at("14:05:00"))},
        {"stayId": 3, "serviceId": 7, "chargeAmount": 9.25, "chargeStatus": "OPEN", "chargeUnits": 1,
         "recordKind": "Charge", "ROWTIME": iso(at("14:13:00"))},
    ]  # fmt: skip
    flush = {"stayId": 999, "recordKind": "Stay", "ROWTIME": iso(at("17:00:00"))}
    write_rows(folder / "src", "a", [*stays, *charges, flush])

    def when(r: dict) -> datetime:
        return datetime.strptime(r["ROWTIME"], "%Y-%m-%dT%H:%M:%SZ")

    window = timedelta(minutes=10)
    want = sorted(
        (max(when(c), when(s)), s["stayId"], s["hotelCity"], c["serviceId"], c["chargeUnits"],
         services.get(c["serviceId"]), max(when(c), when(s)))
        for c in charges
        for s in stays
        if c["stayId"] == s["stayId"] and abs(when(c) - when(s)) <= window
    )  # fmt: skip
    assert len(want) == 2  # stay 2 has no stay record; stay 3's charge is too late
    query = (
        "SELECT charge_ts, stayId, hotelCity, serviceId, chargeUnits, serviceName, ROWTIME "
        "FROM oi.STAY_CHARGE_ENRICHED_STREAM"
    )
    wait_until(lambda: len(server.query(query)) >= len(want), what="the enriched rows")
    # The join's ROWTIME (the later of the two rows, §4) fills "charge_ts" and is the row's ROWTIME.
    assert sorted(server.query(query), key=m.sort_key) == sorted(want, key=m.sort_key)
    # The charges' pump: the service's name from the table (NULL when it is not there), and
    # "checkInDate", left out of its INSERT column list, NULL.
    charge_rows = "SELECT stayId, serviceId, chargeUnits, chargeStatus, checkInDate, serviceName FROM oi.CHARGESTREAM"
    wait_until(lambda: len(server.query(charge_rows)) >= len(charges), what="the charges")
    assert sorted(server.query(charge_rows), key=m.sort_key) == sorted(
        (
            (c["stayId"], c["serviceId"], c["chargeUnits"], c["chargeStatus"], None, services.get(c["serviceId"]))
            for c in charges
        ),
        key=m.sort_key,
    )


# ---- s-Server: schema statements ----------------------------------------------------------------


def test_sserver_program_with_schema_statements(server: Server) -> None:
    """s-Server's schema statements as its "Pump" concept page uses them (CREATE OR REPLACE SCHEMA,
    SET SCHEMA '"Fleet"', streams with DESCRIPTION, a STOPPED pump whose name starts with a digit,
    with a column list over several lines), then `ALTER PUMP "Fleet".* START | STOP`. The pump
    renames one column: the target's row is the inserted row's values, in the source's order."""
    conn = server.hive()
    raw = ("v17", "d4", "ALPS", "R7", 88, 45.5, 6.25)
    try:
        cur = conn.cursor()
        for s in statements(program("sserver_schema_and_stopped_pump.sql")):
            cur.execute(s)
        # SET SCHEMA changed this session's schema: the next statements need no qualifier.
        values = ", ".join(repr(v) for v in raw)
        cur.execute(f"INSERT INTO `RawPositions` VALUES ({values}, TIMESTAMP '2024-01-01 09:30:00')")
        cur.execute('ALTER PUMP "Fleet".* START')
        cur.close()
    finally:
        conn.close()
    pump = "100-DispatchPositionsPump"
    state = {r[0]: r[1] for r in server.query("SHOW PUMPS")}
    assert state[pump] == "RUNNING"
    wait_until(lambda: server.query("SELECT * FROM fleet.positions"), what="the pumped row")
    got = server.query(
        "SELECT vehicle_id, driver_id, region, route_code, speed_kmh, lat, lon, ROWTIME FROM fleet.positions"
    )
    assert got == [(*raw, at("09:30:00"))]
    server.execute('ALTER PUMP "Fleet".* STOP')
    assert {r[0]: r[1] for r in server.query("SHOW PUMPS")}[pump] == "STOPPED"
    server.execute(f'DROP PUMP "{pump}"')


def test_sserver_view_without_rowtime_read_by_a_window(server: Server) -> None:
    """An s-Server view of a `SELECT STREAM` query whose select list names no ROWTIME (it filters
    and keeps two columns), read by a pump that groups by `FLOOR(p.ROWTIME TO MINUTE)`: every
    s-Server stream has a ROWTIME, a view's too, so its rows keep their taps' (docs/semantics.md
    §10). The model filters and counts the generated taps per kiosk and minute with `Counter`."""
    rnd = random.Random(6100)
    t = at("08:00:00")
    taps = []
    for _ in range(240):
        t += timedelta(milliseconds=rnd.randint(200, 2500))
        taps.append(
            (rnd.choice(["k1", "k2", "k3"]), rnd.choice(["debit", "transit"]), rnd.choice([-150, 0, 250, 400]), t)
        )
    flush = ("k1", "debit", 100, t + timedelta(hours=1))  # closes every minute before it
    conn = server.hive()
    try:
        cur = conn.cursor()
        for s in statements(program("sserver_view_without_rowtime_per_minute.sql")):
            cur.execute(s)
        rows = ", ".join(
            f"('{k}', '{c}', {a}, TIMESTAMP '{ts:%Y-%m-%d %H:%M:%S.%f}')" for k, c, a, ts in [*taps, flush]
        )
        cur.execute(f"INSERT INTO `Taps` VALUES {rows}")
        cur.execute('ALTER PUMP "Kiosks"."200-PaidPerMinutePump" START')
        cur.close()
    finally:
        conn.close()
    counts: Counter = Counter()
    cents: Counter = Counter()
    for k, _, a, ts in taps:
        if a > 0:
            end = ts.replace(second=0, microsecond=0) + timedelta(minutes=1)
            counts[(end, k)] += 1
            cents[(end, k)] += a
    expected = sorted((end, k, n, cents[(end, k)]) for (end, k), n in counts.items())
    assert len({end for end, _ in counts}) > 4
    query = "SELECT ROWTIME, kiosk_id, taps, cents FROM kiosks.paidperminute"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every minute's paid taps per kiosk")
    assert sorted(server.query(query)) == expected
    server.execute('DROP PUMP "200-PaidPerMinutePump"')


# ---- every program of the corpus and of examples/, statement by statement, over JDBC -------------

#: What KDA configures outside SQL: each program's source streams (and reference tables).
SOURCES: dict[str, list[str]] = {
    **{f"kda_join_{name}.sql": [GARAGE_SOURCE] for name in JOINS},
    "kda_step_rowtime_and_arrival_time.sql": [TURNSTILE_SOURCE],
    "kda_enrich_with_reference_table_and_join.sql": [
        "CREATE TABLE services (`serviceId` INT, `serviceName` STRING) USING json OPTIONS (path '{folder}/p')",
        'CREATE STREAM "HOTEL_SQL_STREAM_001" (' + HOTEL_COLUMNS + ") WITH (format = 'json', path = '{folder}/s')",
    ],
    "sserver_schema_and_stopped_pump.sql": [],
    "sserver_view_without_rowtime_per_minute.sql": [],
    "kda_sliding_window_min_max_avg_by_sensor.sql": [SENSOR_SOURCE],
    "kda_sliding_window_avg_of_ratio.sql": [SENSOR_SOURCE],
    "kda_sliding_window_two_rows_windows.sql": [SENSOR_SOURCE],
    "kda_sliding_window_running_totals.sql": [SENSOR_SOURCE],
    "kda_fan_out_sorted_by_step_then_plain_select.sql": [SENSOR_SOURCE],
    "kda_step_counts_summed_by_window.sql": [CALLS_SOURCE],
    "kda_stagger_window_by_door.sql": [BADGE_SOURCE],
    "kda_continuous_filter_similar_to.sql": [FLIGHT_SOURCE],
    "kda_to_timestamp_epoch_millis.sql": [LOCKER_SOURCE],
    "kda_regex_log_parse_subquery.sql": [AGENT_SOURCE],
    "kda_w3c_log_parse_common_then_failures_per_minute.sql": [ACCESS_LOG_SOURCE],
    "kda_price_moves_divided_then_counted_per_station.sql": [PRICE_SOURCE],
    "kda_distinct_players_grouped_by_monotonic_minute.sql": [PLAYER_ACTIONS_SOURCE],
    "kda_random_cut_forest_sorted_by_score.sql": [SPINDLE_SOURCE],
    "kda_random_cut_forest_with_explanation_per_van.sql": [VAN_SOURCE],
    "kda_hotspots_of_forklift_positions.sql": [FORKLIFT_SOURCE],
    "kda_top_k_items_tumbling.sql": [CLICKS_SOURCE],
    "kda_count_distinct_items_tumbling.sql": [CLICKS_SOURCE],
    "kda_top_k_of_joined_reference_then_threshold.sql": [
        'CREATE STREAM "SOURCE_SQL_STREAM_001" ("channel" INTEGER, "viewer" VARCHAR(8)) '
        "WITH (format = 'json', path = '{folder}/s')",
        "CREATE TABLE GUIDE (`channel` INT, `genre` STRING) USING csv OPTIONS (path '{folder}/p')",
    ],
    "app.sql": [],
}


def test_every_program_runs_statement_by_statement_over_jdbc(server: Server) -> None:
    """No statement of any program of the corpus or of examples/ fails when it is pasted as written,
    and none of its pumps fails. Each program's pumps are dropped before the next program, so that
    the server runs one program's pumps at a time."""
    programs = all_programs()
    assert {p.name for p in programs} == set(SOURCES), "a program without its sources here"
    pumped, failed = 0, []
    for i, path in enumerate(programs):
        folder = server.state_dir.parent / f"corpus_{i}"
        for sub in ("", "p", "s"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        text = path.read_text().replace("${DATA}", str(folder))
        for sub in ("orders", "shipments", "products"):
            (folder / sub).mkdir(exist_ok=True)
        run(server, f"corpus_{i}", [s.format(folder=folder) for s in SOURCES[path.name]], text)
        pumps = server.query("SHOW PUMPS")
        pumped += len(pumps)
        failed += [[path.name, *map(str, r)] for r in pumps if r[1] == "FAILED"]
        for r in pumps:
            server.execute(f'DROP PUMP "{r[-1]}"."{r[0]}"')
    assert pumped >= len(programs) and not failed, json.dumps(failed)


_CODE = re.compile(r"\b(OJ\d{3})\b")
#: Column checks the validator names with codes of its own, which the server leaves to Spark's
#: analyzer: the same refusal, under Spark's error class.
_SPARKS_OWN = {"OJ201": "UNRESOLVED_USING_COLUMN_FOR_JOIN", "OJ205": "AMBIGUOUS_REFERENCE"}


def test_every_corpus_statement_gets_the_same_verdict_over_jdbc(server: Server) -> None:
    """Each statement of tests/corpus/valid and invalid, sent as written over JDBC: a valid one is
    never refused as bad syntax (over tables that may not exist, analysis may still fail); an
    invalid one is refused with its code. The tables of the corpus's schemas exist, as plain
    tables, so that the checks that need columns (OJ2xx) run as well."""
    schema = "corpus_statements"
    setup = [f"CREATE DATABASE IF NOT EXISTS {schema}", f"USE {schema}"]
    for file in sorted((CORPUS_DIR / "schemas").glob("*.json")):
        for table, columns in json.loads(file.read_text()).items():
            cols = ", ".join(f"`{c}` {t}" for c, t in columns.items())
            *db, name = table.split(".")
            setup += [f"CREATE DATABASE IF NOT EXISTS `{d}`" for d in db]
            qualified = ".".join(f"`{part}`" for part in [*db, name])
            setup.append(f"CREATE TABLE IF NOT EXISTS {qualified} ({cols}) USING parquet")
    conn = server.hive()
    wrong: list[str] = []
    try:
        cur = conn.cursor()
        for s in setup:
            cur.execute(s)
        for entry in load_corpus():
            dq = "true" if entry.double_quoted_identifiers else "false"
            cur.execute(f"SET spark.sql.ansi.doubleQuotedIdentifiers = {dq}")
            try:
                cur.execute(entry.sql)
                error = None
            except Exception as e:
                error = str(e)
            finally:
                cur.execute(f"USE {schema}")  # SET SCHEMA '"x"' entries move the session
            codes = _CODE.findall(error or "")
            syntax = error is not None and ("PARSE_SYNTAX_ERROR" in error or any(c < "OJ200" for c in codes))
            if entry.valid and syntax:
                wrong.append(f"{entry.name}: refused as bad syntax: {error[:300]}")  # type: ignore[index]
            elif not entry.valid and error is None:
                wrong.append(f"{entry.name}: accepted, expected {entry.code}")
            elif not entry.valid:
                got = codes[0] if codes else ("OJ001" if "PARSE_SYNTAX_ERROR" in error else None)  # type: ignore[operator]
                if got is None and _SPARKS_OWN.get(entry.code or "", "-") in error:  # type: ignore[operator]
                    got = entry.code
                if got != entry.code:
                    wrong.append(f"{entry.name}: expected {entry.code}, got {got}: {error[:300]}")  # type: ignore[index]
        cur.close()
    finally:
        conn.close()
    for name in [
        r[0] for r in server.query("SHOW PUMPS") if r[0].lower() in ("stream_pump", "orderpump", "orders_stream_pump")
    ]:
        server.execute(f"DROP PUMP IF EXISTS `{name}`")
    assert not wrong, "\n".join(wrong)


# ---- sliding windows in pumps, as in the developer guide's "Sliding Windows" examples -------------


def sensor_rows(seed: int, n: int = 40) -> list[dict]:
    """Probe records in rowtime order, one second apart at least (no ties, so ROWS windows do not
    depend on arrival order); readings and drifts in quarters, which REAL holds exactly, and a
    reading never equal to its drift."""
    rnd = random.Random(seed)
    t = at("09:00:00")
    rows = []
    for _ in range(n):
        t += timedelta(seconds=rnd.randint(1, 12))
        rows.append({"ROWTIME": t, "SENSOR_ID": rnd.choice(["GH-01", "GH-02", "GH-03"]), "BAY": "NORTH",
                     "DRIFT": rnd.randint(-12, 12) / 4, "READING": rnd.randint(60, 140) / 4})  # fmt: skip
    return rows


def _by_sensor(r: dict) -> str:
    return str(r["SENSOR_ID"])


def expected_sliding(name: str, rows: list[dict]) -> list[tuple]:
    if name == "min_max_avg_by_sensor":  # MIN, MAX and AVG over the last ninety seconds
        calls = [m.SlidingCall("MIN", "READING"), m.SlidingCall("MAX", "READING"), m.SlidingCall("AVG", "READING")]
        return m.sliding_window(rows, "ROWTIME", m.Window.range(timedelta(seconds=90)), calls, _by_sensor,
                                keep=("SENSOR_ID",))  # fmt: skip
    if name == "avg_of_ratio":  # AVG(Drift / (Reading - Drift)) over the last twenty seconds
        ratios = [{**r, "RATIO": r["DRIFT"] / (r["READING"] - r["DRIFT"])} for r in rows]
        return m.sliding_window(ratios, "ROWTIME", m.Window.range(timedelta(seconds=20)),
                                [m.SlidingCall("AVG", "RATIO")], _by_sensor, keep=("SENSOR_ID",))  # fmt: skip
    if name == "running_totals":  # COUNT, SUM and MAX over every earlier reading of the probe
        calls = [m.SlidingCall("COUNT"), m.SlidingCall("SUM", "READING"), m.SlidingCall("MAX", "READING")]
        return m.sliding_window(rows, "ROWTIME", m.Window.range(timedelta(days=3650)), calls, _by_sensor,
                                keep=("SENSOR_ID",))  # fmt: skip
    assert name == "two_rows_windows"  # avg over the last 4 rows, and over the last 9
    last4 = m.sliding_window(rows, "ROWTIME", m.Window.rows(3), [m.SlidingCall("AVG", "READING")], _by_sensor,
                             keep=("SENSOR_ID", "READING"))  # fmt: skip
    last9 = m.sliding_window(rows, "ROWTIME", m.Window.rows(8), [m.SlidingCall("AVG", "READING")], _by_sensor,
                             keep=("SENSOR_ID", "READING"))  # fmt: skip
    nine = {(r[0], r[1]): r[-1] for r in last9}
    return sorted(((*r, nine[(r[0], r[1])]) for r in last4), key=m.sort_key)


def rounded(rows: list[tuple]) -> list[tuple]:
    return sorted((tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows), key=m.sort_key)


@pytest.mark.parametrize("name", ["min_max_avg_by_sensor", "avg_of_ratio", "two_rows_windows", "running_totals"])
def test_kda_sliding_window_program(server: Server, name: str) -> None:
    """Sliding windows in a pump as in the developer guide's three "Sliding Windows" examples:
    MIN/MAX/AVG over a named `RANGE INTERVAL ... PRECEDING` window partitioned by a key; AVG of an
    arithmetic expression over one; two named `ROWS n PRECEDING` windows in one WINDOW clause; and a
    running total per key, `RANGE UNBOUNDED PRECEDING`, as a published telemetry application keeps
    one (the model: a window longer than the stream). Against the reference model over the same
    generated records (seed printed on failure)."""
    seed = {"min_max_avg_by_sensor": 5101, "avg_of_ratio": 5102, "two_rows_windows": 5103, "running_totals": 5104}[name]
    folder = server.state_dir.parent / f"sliding_{name}"
    db = f"sliding_{name}"
    run(server, db, [SENSOR_SOURCE.format(folder=folder)], program(f"kda_sliding_window_{name}.sql"))
    rows = sensor_rows(seed)
    flush = {"ROWTIME": rows[-1]["ROWTIME"] + timedelta(hours=1), "SENSOR_ID": "FLUSH", "BAY": "X", "DRIFT": 0.0,
             "READING": 20.0}  # fmt: skip
    write_rows(folder, "records", [{**r, "ROWTIME": iso(r["ROWTIME"])} for r in [*rows, flush]])
    expected = rounded(expected_sliding(name, rows))
    query = f"SELECT ROWTIME, * FROM {db}.DESTINATION_SQL_STREAM"

    def got() -> list[tuple]:
        return rounded([r[:-1] for r in server.query(query)])

    wait_until(lambda: len(got()) >= len(expected), what=f"{name}'s rows (seed {seed})")
    assert got() == expected, f"seed {seed}"


def test_kda_sorted_by_step_and_copied_by_a_plain_select(server: Server) -> None:
    """A pump that names no ROWTIME and sorts by `ORDER BY STEP(s.rowtime BY INTERVAL '1' MINUTE),
    READING DESC` gives each row its own ROWTIME (the sort keeps them, docs/semantics.md §10-11),
    and a pump written `INSERT INTO ARCHIVE_STREAM SELECT * FROM METRICS_STREAM`, without STREAM,
    reads its stream as a stream, as KDA's pumps did (AWS's IoT monitoring template). The model
    floors each generated reading's ROWTIME to its minute; both streams hold every reading once."""
    folder = server.state_dir.parent / "fan_out"
    db = "fan_out"
    run(server, db, [SENSOR_SOURCE.format(folder=folder)], program("kda_fan_out_sorted_by_step_then_plain_select.sql"))
    rows = sensor_rows(5301, 60)
    flush = {"ROWTIME": rows[-1]["ROWTIME"] + timedelta(hours=1), "SENSOR_ID": "FLUSH", "BAY": "X", "DRIFT": 0.0,
             "READING": 20.0}  # fmt: skip
    write_rows(folder, "records", [{**r, "ROWTIME": iso(r["ROWTIME"])} for r in [*rows, flush]])
    expected = sorted(
        (r["ROWTIME"], r["ROWTIME"].replace(second=0), "Reading", r["SENSOR_ID"], r["READING"]) for r in rows
    )
    for stream in ("METRICS_STREAM", "ARCHIVE_STREAM"):
        query = f"SELECT ROWTIME, eventMinute, metricName, sensorId, metricValue FROM {db}.{stream}"
        wait_until(lambda q=query: len(server.query(q)) >= len(expected), what=f"every reading in {stream}")
        assert sorted(server.query(query)) == expected, stream
    server.execute("DROP PUMP archive_pump")
    server.execute("DROP PUMP readings_pump")


# ---- partial counts summed back together, as in the developer guide's partial-results example ----


def test_kda_step_counts_summed_by_window_program(server: Server) -> None:
    """Two chained pumps as in the developer guide's "Aggregating Partial Results from a Query":
    `CREATE PUMP` with a quoted INSERT column list, a STEP count grouped by the ROWTIME window, the
    arrival window and a key, then `SUM(...) OVER W1` partitioned by the window column. All calls
    arrive in one file (one arrival window), so each (queue, window) has one partial count, and the
    second pump gives each the window's total over every queue. The model counts the generated calls
    per queue and two-minute window with `Counter`."""
    rnd = random.Random(5200)
    folder = server.state_dir.parent / "partial"
    run(server, "partial", [CALLS_SOURCE.format(folder=folder)], program("kda_step_counts_summed_by_window.sql"))
    two = timedelta(minutes=2)
    t = at("13:00:00")
    records, calls = [], []
    for _ in range(60):
        t += timedelta(seconds=rnd.randint(1, 12))
        queue = rnd.choice(["BILLING", "REPAIRS", "SALES"])
        calls.append((m.step_floor(t, two), queue))
        records.append({"ROWTIME": iso(t), "QUEUE_NAME": queue, "CALLER": f"+351{rnd.randint(10**6, 10**7)}"})
    write_rows(folder, "calls", records)
    # Two far calls: the first closes every window of the first pump, the second closes the first's
    # window, whose partial count moves the second pump's watermark past every window above.
    for h in (1, 2):
        write_rows(
            folder, f"flush{h}", [{"ROWTIME": iso(t + timedelta(hours=h)), "QUEUE_NAME": "FLUSH", "CALLER": "-"}]
        )
    partial = Counter(calls)
    total = Counter(start for start, _ in calls)
    expected = sorted((queue, start, float(total[start])) for start, queue in partial)
    assert len(total) > 2 and len(expected) > len(total)
    query = "SELECT QUEUE, CALLWINDOW, CALLCOUNT FROM partial.QUEUE_LOAD_STREAM WHERE QUEUE <> 'FLUSH'"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every window's summed count")
    assert sorted(server.query(query)) == expected
    first = "SELECT QUEUE, CALLWINDOW, CALLCOUNT, ROWTIME FROM partial.PARTIAL_CALLS_STREAM WHERE QUEUE <> 'FLUSH'"
    assert sorted(server.query(first)) == sorted((q, s, float(n), s + two) for (s, q), n in partial.items())


# ---- a stagger window in a pump, as in the developer guide's "Example: Stagger Window" -----------


def test_kda_stagger_window_program(server: Server) -> None:
    """`WINDOWED BY STAGGER (PARTITION BY key, event_time RANGE INTERVAL ...)` in a pump, as in the
    developer guide's stagger-window example: per door and reader batch time (microseconds kept), a
    window opened by its first swipe and two minutes long (docs/semantics.md §13), each row's
    ROWTIME the window's end; a key's swipe after its window opens the next one. The model is
    `tests/reference_model.py`'s `stagger_windows` over the same rows."""
    folder = server.state_dir.parent / "stagger"
    run(server, "stagger", [BADGE_SOURCE.format(folder=folder)], program("kda_stagger_window_by_door.sql"))
    day = datetime(2023, 11, 14)

    def t(clock: str, micros: int = 0) -> datetime:
        h, mi, s = (int(x) for x in clock.split(":"))
        return day.replace(hour=h, minute=mi, second=s, microsecond=micros)

    north, south, north_later = t("06:29:58", 431250), t("06:30:55", 8800), t("06:32:40", 999999)
    swipes = [(north, "NORTH", c) for c in ("06:30:05", "06:30:25", "06:30:45", "06:31:05", "06:31:25")]
    swipes += [(south, "SOUTH", c) for c in ("06:31:00", "06:31:30", "06:32:50", "06:33:10")]
    swipes += [(north_later, "NORTH", c) for c in ("06:32:45", "06:33:00")]
    swipes.sort(key=lambda s: s[2])
    rows: list[dict[str, Any]] = [{"READER_TIME": reader, "DOOR": door, "ROWTIME": t(c)} for reader, door, c in swipes]
    records = [
        {"READER_TIME": r["READER_TIME"].isoformat(), "DOOR": r["DOOR"], "ROWTIME": iso(r["ROWTIME"])} for r in rows
    ]
    records.append({"READER_TIME": t("08:00:00").isoformat(), "DOOR": "ZZZ", "ROWTIME": iso(t("08:00:00"))})
    write_rows(folder, "records", records)
    windows = m.stagger_windows(rows, "ROWTIME", timedelta(minutes=2), lambda r: (r["DOOR"], r["READER_TIME"]))
    expected = sorted((reader, door, len(group), end) for (end, _, door, reader), group in windows.items())
    assert len(expected) == 4  # SOUTH's last swipe opens a second window
    query = "SELECT reader_time, door_id, swipe_count, ROWTIME FROM stagger.DOOR_ACTIVITY_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the closed windows")
    assert sorted(server.query(query)) == expected


# ---- a continuous filter with SIMILAR TO, as in the getting-started exercise's template ---------


def test_kda_continuous_filter_program(server: Server) -> None:
    """A one-pump continuous filter as in the getting-started exercise's "Continuous filter"
    template: the rows whose route SIMILAR TO '%COAST%' matches (the whole route, `%` any run of
    characters, case kept), into a stream whose first column is named `flight` where the select
    list says `flight_code` (KDA fills by position). Generated records; the model is Python's own
    test for a substring, which is what '%COAST%' means."""
    rnd = random.Random(5300)
    folder = server.state_dir.parent / "filter"
    run(server, "filter", [FLIGHT_SOURCE.format(folder=folder)], program("kda_continuous_filter_similar_to.sql"))
    routes = ["COASTAL", "INLAND", "EASTCOAST", "coast", "COAST", "MOUNTAIN", "GOLDCOASTLINE", "DESERT", "COAS"]
    t = at("16:00:00")
    rows: list[tuple[str, str, float, float]] = []
    records = []
    for _ in range(40):
        t += timedelta(seconds=rnd.randint(0, 5))
        row = (rnd.choice(["TP123", "IB456", "FR789"]), rnd.choice(routes), rnd.randint(-8, 40) / 4,
               rnd.randint(80, 1600) / 4)  # fmt: skip
        rows.append(row)
        records.append({"ROWTIME": iso(t), "FLIGHT_CODE": row[0], "ROUTE": row[1], "DELAY": row[2], "FARE": row[3]})
    write_rows(folder, "records", records)
    expected = sorted(r for r in rows if "COAST" in r[1])
    assert expected and len(expected) < len(rows)
    query = "SELECT flight, route, DELAY, fare FROM filter.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the filtered rows")
    assert sorted(server.query(query)) == expected


def test_kda_to_timestamp_program(server: Server) -> None:
    """TO_TIMESTAMP of a BIGINT in a pump's select list, as in the reference's TO_TIMESTAMP example:
    milliseconds since 1970-01-01 00:00:00 UTC become a TIMESTAMP (KDA's TO_TIMESTAMP; Spark's reads
    seconds). The program ends without a `;`. The model is Python's calendar arithmetic."""
    rnd = random.Random(5400)
    folder = server.state_dir.parent / "to_ts"
    run(server, "to_ts", [LOCKER_SOURCE.format(folder=folder)], program("kda_to_timestamp_epoch_millis.sql"))
    t = at("18:00:00")
    records, expected = [], []
    for _ in range(12):
        t += timedelta(seconds=rnd.randint(0, 9))
        opened = t - timedelta(milliseconds=rnd.randint(0, 10**9))
        ms = calendar.timegm(opened.timetuple()) * 1000 + opened.microsecond // 1000
        locker, site = rnd.choice(["L-0041", "L-0107"]), rnd.choice(["Central Station", "Airport T2"])
        temp, charge = rnd.randint(-20, 120) / 4, rnd.randint(0, 40) / 4
        records.append({"ROWTIME": iso(t), "locker_id": locker, "site": site, "temp_c": temp,
                        "opened_at_ms": ms, "charge": charge})  # fmt: skip
        expected.append((locker, site, temp, opened.replace(microsecond=opened.microsecond // 1000 * 1000), charge))
    write_rows(folder, "records", records)
    query = "SELECT locker_id, site, temp_c, opened_at, charge FROM to_ts.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the converted rows")
    assert sorted(server.query(query)) == sorted(expected)


def test_kda_regex_log_parse_program(server: Server) -> None:
    """REGEX_LOG_PARSE in a SELECT STREAM subquery, its row read as P.PARTS.COLUMN1, as in the
    reference's REGEX_LOG_PARSE example 2: the row of the regular expression's groups (NULL when
    the whole agent does not match). The subquery does not select ROWTIME; as every KDA stream, it
    has one. The model is Python's `re.fullmatch` with the same expression."""
    rnd = random.Random(5500)
    folder = server.state_dir.parent / "regex_parse"
    run(server, "regex_parse", [AGENT_SOURCE.format(folder=folder)], program("kda_regex_log_parse_subquery.sql"))
    pattern = re.search(r"REGEX_LOG_PARSE\(AGENT, '([^']*)'\)", program("kda_regex_log_parse_subquery.sql"))
    assert pattern
    agents = ["curl/8.4.0", "Wget/1.21.3", "Mozilla/5.0 (X11)", "healthcheck", "Go-http-client/2.0", "probe/7",
              "okhttp/4.12.0", "/9.1", "x/10.b"]  # fmt: skip
    t = at("10:00:00")
    records, expected = [], []
    for _ in range(30):
        t += timedelta(seconds=rnd.randint(0, 5))
        agent = rnd.choice(agents)
        records.append({"ROWTIME": iso(t), "CLIENT_IP": "10.0.0.8", "AGENT": agent, "BYTES": rnd.randint(200, 9000)})
        match = re.fullmatch(pattern.group(1), agent)
        expected.append((agent, *(match.groups() if match else (None, None))))
    assert any(e[1] is None for e in expected) and any(e[1] is not None for e in expected)
    write_rows(folder, "records", records)
    query = "SELECT agent, product, major FROM regex_parse.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the parsed rows")
    assert sorted(server.query(query), key=str) == sorted(expected, key=str)


def test_kda_w3c_log_parse_program(server: Server) -> None:
    """W3C_LOG_PARSE(col, 'COMMON') in a SELECT STREAM subquery named `AS w(logrow)` and read as
    `w.logrow.COLUMN1`, as the developer guide's W3C_LOG_PARSE example writes it, into a stream of
    VARCHARs; then a STEP count of the failed requests per status and minute of that stream, which
    needs the subquery's rows to keep their ROWTIME through `AS w(logrow)`. Lines are written from
    generated fields in the Common Log Format, so each parsed row must give back its line's fields
    (the time with its brackets, the request without its quotes); a line that is not a log line
    gives a row of NULLs. The counts are Python's `Counter` over the generated lines."""
    rnd = random.Random(5510)
    folder = server.state_dir.parent / "w3c_parse"
    text = program("kda_w3c_log_parse_common_then_failures_per_minute.sql")
    run(server, "w3c_parse", [ACCESS_LOG_SOURCE.format(folder=folder)], text)
    t = at("09:00:00")
    records: list[dict[str, str]] = []
    parsed: list[tuple[str | None, ...]] = []
    failures: Counter[tuple[datetime, str]] = Counter()
    for i in range(60):
        t += timedelta(seconds=rnd.randint(0, 9))
        fields: tuple[str | None, ...] = (
            rnd.choice(["10.0.0.7", "192.168.4.20", "edge-3.example.net"]),
            "-",
            rnd.choice(["-", "ana", "jo"]),
            t.strftime("[%d/%b/%Y:%H:%M:%S +0000]"),
            f"{rnd.choice(['GET', 'POST'])} /{rnd.choice(['', 'cart', 'img/a b.png'])} HTTP/1.1",
            rnd.choice(["200", "200", "304", "404", "500", "503"]),
            rnd.choice(["-", str(rnd.randint(1, 90000))]),
        )
        line = '{} {} {} {} "{}" {} {}'.format(*fields)
        if i == 17:  # not a log line: a row of NULLs
            line, fields = "health check ok", (None,) * 7
        records.append({"ROWTIME": iso(t), "access_line": line})
        parsed.append((fields[0], fields[2], fields[3], fields[4], fields[5], fields[6]))
        status = fields[5]
        if status is not None and status >= "400":
            failures[(t.replace(second=0) + timedelta(minutes=1), status)] += 1
    flush = t + timedelta(hours=1)  # closes every minute above
    records.append(
        {"ROWTIME": iso(flush), "access_line": f'10.0.0.7 - - [{flush:%d/%b/%Y:%H:%M:%S} +0000] "GET / HTTP/1.1" 200 1'}
    )
    parsed.append(("10.0.0.7", "-", f"[{flush:%d/%b/%Y:%H:%M:%S} +0000]", "GET / HTTP/1.1", "200", "1"))
    assert len(failures) > 3
    write_rows(folder, "records", records)
    query = (
        "SELECT client_host, client_user, logged_at, request_line, status_code, response_bytes "
        "FROM w3c_parse.ACCESS_LOG_STREAM"
    )
    wait_until(lambda: len(server.query(query)) >= len(parsed), what="the parsed lines")
    assert sorted(server.query(query), key=str) == sorted(parsed, key=str)
    counted = "SELECT ROWTIME, status_code, failures FROM w3c_parse.FAILED_REQUESTS_STREAM"
    expected = sorted((end, status, n) for (end, status), n in failures.items())
    wait_until(lambda: len(server.query(counted)) >= len(expected), what="the failures per minute")
    assert sorted(server.query(counted)) == expected


def test_kda_distinct_players_grouped_by_a_monotonic_minute(server: Server) -> None:
    """`GROUP BY server_minute` of a `SELECT STREAM DISTINCT` subquery whose item `monotonic (STEP
    (CHAR_TO_TIMESTAMP(...) by INTERVAL '60' SECOND)) AS server_minute` is a minute of a clock the
    records carry, as AWS's web analytics solution counts its active visitors: each minute of that
    clock once a later minute has come, with the number of distinct (minute, minute of arrival,
    player) rows, as `ROWTIME` the minute itself; a second pump filters those rows. The oracle is
    the reference model's first-row-per-key over the records in arrival order."""
    rnd = random.Random(3417)
    folder = server.state_dir.parent / "players_monotonic"
    run(
        server,
        "players_monotonic",
        [PLAYER_ACTIONS_SOURCE.format(folder=folder)],
        program("kda_distinct_players_grouped_by_monotonic_minute.sql"),
    )
    arrived, clock = at("21:00:00"), at("20:59:58")
    records: list[dict[str, str]] = []
    keys: list[dict[str, Any]] = []
    for _ in range(160):
        arrived += timedelta(seconds=rnd.randint(0, 6))
        clock = max(clock, arrived - timedelta(seconds=rnd.randint(0, 4)))
        player = rnd.choice(["p7", "p12", "p31", "p44", "p58"])
        records.append({"ROWTIME": iso(arrived), "player_id": player, "server_clock": f"{clock:%Y-%m-%d %H:%M:%S}"})
        keys.append({"ROWTIME": arrived, "minute": clock.replace(second=0), "player": player})
    flush = arrived + timedelta(hours=1)  # a later minute closes every one above
    records.append({"ROWTIME": iso(flush), "player_id": "p7", "server_clock": f"{flush:%Y-%m-%d %H:%M:%S}"})
    write_rows(folder, "records", records)
    kept = m.stream_distinct(
        keys, "ROWTIME", lambda r: (r["minute"], m.step_floor(r["ROWTIME"], timedelta(minutes=1)), r["player"])
    )
    players = Counter(minute for _, (minute, _, _) in kept)
    epoch_ms = {t: calendar.timegm(t.timetuple()) * 1000 for t in players}
    expected = sorted((t, "players_per_minute", epoch_ms[t], n) for t, n in players.items())
    assert len(expected) > 8 and any(n >= 3 for _, _, _, n in expected) and any(n < 3 for _, _, _, n in expected)
    query = "SELECT ROWTIME, MetricName, MinuteStartMillis, PlayerCount FROM players_monotonic.GAME_METRICS_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the players per minute")
    assert sorted(server.query(query)) == expected
    busy = "SELECT ROWTIME, MinuteStartMillis, PlayerCount FROM players_monotonic.BUSY_MINUTES_STREAM"
    expected_busy = sorted((t, ms, n) for t, _, ms, n in expected if n >= 3)
    wait_until(lambda: len(server.query(busy)) >= len(expected_busy), what="the busy minutes")
    assert sorted(server.query(busy)) == expected_busy


def test_kda_division_by_zero_leaves_the_row_out_and_the_pump_runs_on(server: Server) -> None:
    """A WHERE that divides by a difference of two columns, as the developer guide's throttled
    alerts program does, over reports where that difference is sometimes zero: KDA sent such a row to
    its error stream and went on; here the row is left out, the pump keeps running and DESCRIBE PUMP
    counts it. A second pump counts each station's moves over ten minutes with a sliding window
    and keeps the stations that moved twice; a third averages each station's moves every ten
    minutes with `SUM(delta / (price - delta)) * 100 / COUNT(*)`, leaving the zero divisors out of
    their groups. Models: the same filter in Python, skipping the zero divisors, a count of the kept
    moves of the station in the ten minutes up to each, and the averages per station and window.
    Each row left out is a row of `error_stream` (KDA's columns, `ERROR_NAME` 'Division by zero',
    `PUMP_NAME` the pump's, `DATA_ROW` the row in hex): a pump sending `error_stream` on to a stream
    gets each report with a zero divisor once per pump that divided by it. A pump that reads
    `error_stream` and divides by zero itself leaves its rows out and out of `error_stream`."""
    rnd = random.Random(5520)
    folder = server.state_dir.parent / "price_moves"
    text = program("kda_price_moves_divided_then_counted_per_station.sql")
    run(server, "price_moves", [PRICE_SOURCE.format(folder=folder)], text)
    # The error stream sent on, as KDA's error_stream output did (what `overjoin import` writes).
    run(server, "price_moves", [], DIVISION_ERRORS_OUTPUT)
    t = at("06:00:00")
    records: list[dict[str, Any]] = []
    kept, zero = [], 0
    for _ in range(80):
        t += timedelta(seconds=rnd.randint(20, 90))
        station, grade = rnd.choice(["ST-1", "ST-2", "ST-3"]), rnd.choice(["E10", "DIESEL"])
        price = round(rnd.uniform(1.5, 2.0), 2)
        delta = rnd.choice([0.0, 0.01, -0.02, 0.05, -0.08, price])  # price itself: price - delta is 0
        records.append({"ROWTIME": iso(t), "station_id": station, "grade": grade, "delta": delta, "price": price})
        if price - delta == 0:
            zero += 1
        elif abs(delta / (price - delta)) * 100 > 2:
            kept.append((t, station, grade, delta, price))
    assert zero > 3 and len(kept) > 10
    flush = t + timedelta(hours=1)  # a move of a station of its own, an hour on: every window above is final
    records.append({"ROWTIME": iso(flush), "station_id": "ST-9", "grade": "E10", "delta": 0.5, "price": 2.0})
    kept.append((flush, "ST-9", "E10", 0.5, 2.0))
    write_rows(folder, "records", records)
    query = "SELECT ROWTIME, station_id, grade, delta, price FROM price_moves.PRICE_MOVES_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(kept), what="the moves over two percent")
    assert sorted(server.query(query)) == sorted(kept)
    described = dict(server.query('DESCRIBE PUMP "price_moves"."price_moves_pump"'))
    assert described["state"] == "RUNNING" and described["error_rows"] == str(zero)
    assert "divided by zero" in described["error_row_sample"]
    ten = timedelta(minutes=10)
    busy = []
    for when, station, _, delta, _ in kept:
        n = sum(1 for w, s, *_ in kept if s == station and when - ten <= w <= when)
        if n >= 2:
            busy.append((when, station, delta, n))
    counted = "SELECT ROWTIME, station_id, delta, move_count FROM price_moves.BUSY_STATION_STREAM"
    wait_until(lambda: len(server.query(counted)) >= len(busy), what="the busy stations")
    got = [(w, s, round(d, 4), n) for w, s, d, n in server.query(counted)]
    assert sorted(got) == sorted((w, s, round(d, 4), n) for w, s, d, n in busy)
    # The third pump: a report whose division in SUM(...) divides by zero is left out of its group
    # (and counted), each group's ROWTIME the end of its ten minutes.
    groups: dict[tuple[datetime, str], list[float]] = {}
    for r in records:
        when = datetime.strptime(r["ROWTIME"], "%Y-%m-%dT%H:%M:%SZ")
        if r["price"] - r["delta"] != 0 and when < flush:
            end = when.replace(minute=when.minute // 10 * 10, second=0) + ten
            groups.setdefault((end, r["station_id"]), []).append(r["delta"] / (r["price"] - r["delta"]))
    averages = sorted((end, s, round(sum(v) * 100 / len(v), 6), len(v)) for (end, s), v in groups.items())
    averaged = "SELECT ROWTIME, station_id, avg_move_pct, reports FROM price_moves.AVERAGE_MOVE_STREAM"
    wait_until(lambda: len(server.query(averaged)) >= len(averages), what="the average moves")
    assert sorted((w, s, round(a, 6), n) for w, s, a, n in server.query(averaged)) == averages
    described = dict(server.query('DESCRIBE PUMP "price_moves"."average_move_pump"'))
    assert described["state"] == "RUNNING" and described["error_rows"] == str(zero)
    # error_stream: each report whose price - delta is 0, once for each of the two pumps that divide by it.
    divided = [r for r in records if r["price"] - r["delta"] == 0]
    expected_errors = sorted(
        (pump, datetime.strptime(r["ROWTIME"], "%Y-%m-%dT%H:%M:%SZ"), r["station_id"], r["delta"], r["price"])
        for r in divided
        for pump in ("average_move_pump", "price_moves_pump")
    )
    errors = (
        "SELECT ERROR_LEVEL, ERROR_NAME, MESSAGE, DATA_ROWTIME, DATA_ROW, PUMP_NAME FROM price_moves.DIVISION_ERRORS"
    )
    wait_until(lambda: len(server.query(errors)) >= len(expected_errors), what="the rows that divided by zero")
    got_errors = server.query(errors)
    assert {(level, name) for level, name, *_ in got_errors} == {("WARNING", "Division by zero")}
    assert all("division by zero" in message and "is 0" in message for _, _, message, *_ in got_errors)
    rows = [(pump, when, json.loads(bytes.fromhex(data))) for _, _, _, when, data, pump in got_errors]
    assert sorted((p, w, d["station_id"], d["delta"], d["price"]) for p, w, d in rows) == expected_errors
    # A pump reading error_stream that divides by zero itself (for price_moves_pump's rows) leaves
    # those rows out and keeps them out of error_stream: they would come back to it, for ever.
    shares = "SELECT PUMP_NAME, SHARE FROM price_moves.ERROR_SHARES"
    wait_until(lambda: len(server.query(shares)) >= len(divided), what="the error shares")
    assert sorted(server.query(shares)) == [("average_move_pump", 100)] * len(divided)
    # A pump puts its error files in place before its rows: none of this one's are there.
    folder = server.state_dir / "errors" / "price_moves"
    assert list(folder.glob("pump-price_moves_pump-*.json")) and not list(folder.glob("pump-error_share_pump-*"))
    assert len(server.query(errors)) == len(expected_errors)


# ---- RANDOM_CUT_FOREST, then a stream sorted per second, as in the developer guide's anomaly example


def test_kda_random_cut_forest_program(server: Server) -> None:
    """Two pumps as in the developer guide's anomaly-detection example: one scores each record with
    RANDOM_CUT_FOREST (default parameters) into a scratch stream, another sorts each second of it by
    descending score into the destination (docs/semantics.md §11, §14). Generated spindle speeds
    (1450-1550 rpm, about 1 in 50 surging to 2600-2900 after a warm-up). Every record arrives with
    its score, the scores are exactly those the same query gives over the source's rows as a table
    (a plain SELECT of the same server, reading the stream as a table), and the surges score above
    every normal speed."""
    rnd = random.Random(5600)
    folder = server.state_dir.parent / "anomaly"
    run(server, "anomaly", [SPINDLE_SOURCE.format(folder=folder)], program("kda_random_cut_forest_sorted_by_score.sql"))
    t = at("10:00:00")
    records = []
    for i in range(600):
        t += timedelta(milliseconds=rnd.randint(50, 400))
        surge = i > 200 and rnd.random() < 0.02
        rpm = rnd.randint(2600, 2900) if surge else rnd.randint(1450, 1550)
        records.append({"ROWTIME": iso_micros(t), "spindleRpm": rpm, "machineMode": "SURGE" if surge else "NORMAL"})
    write_rows(folder, "records", records)
    # Two far records: the first closes every second of the sort, the second releases the first.
    flush = [{"ROWTIME": iso(t + timedelta(hours=h)), "spindleRpm": 1500, "machineMode": "FLUSH"} for h in (1, 2)]
    write_rows(folder, "flush", flush)
    query = "SELECT `spindleRpm`, `machineMode`, ANOMALY_SCORE FROM anomaly.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(records), what="every record with its score")
    got = sorted(r for r in server.query(query) if r[1] != "FLUSH")
    replay = sorted(
        r
        for r in server.query(
            'SELECT "spindleRpm", "machineMode", ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST('
            'CURSOR(SELECT * FROM anomaly."SPINDLE_SQL_STREAM_001")))'
        )
        if r[1] != "FLUSH"
    )
    assert got == replay
    assert sorted((r[0], r[1]) for r in got) == sorted((r["spindleRpm"], r["machineMode"]) for r in records)
    normal = [r[2] for r in got if r[1] == "NORMAL"]
    surges = [r[2] for r in got if r[1] == "SURGE"]
    assert surges and min(surges) > max(normal)


def test_kda_random_cut_forest_with_explanation_program(server: Server) -> None:
    """RANDOM_CUT_FOREST_WITH_EXPLANATION with every parameter written (`true` for directionality,
    a comment after each) into a scratch stream with a VARCHAR(512) explanation column, then sorted
    within each second, as the published programs that explain their scores write it. Generated van
    telemetry (speed 40-90 km/h, engine 85-100 C; after a warm-up about 1 in 120 records a speed of
    150-190 alone, as many an engine of 20-40 C alone). Every record arrives with its score and an
    explanation of its two numeric columns (not the van's id) whose parts sum to the score; the
    planted column explains a planted record most, in the planted direction; and the rows are those
    the same query gives over the source's rows as a table."""
    rnd = random.Random(5611)
    folder = server.state_dir.parent / "vans"
    run(
        server,
        "vans",
        [VAN_SOURCE.format(folder=folder)],
        program("kda_random_cut_forest_with_explanation_per_van.sql"),
    )
    t = at("07:00:00")
    records = []
    planted: dict[tuple[str, int, int], tuple[str, str]] = {}
    for i in range(900):
        t += timedelta(milliseconds=rnd.randint(50, 400))
        van, speed, temp = f"V{rnd.randint(1, 9)}", rnd.randint(40, 90), rnd.randint(85, 100)
        u = rnd.random()
        if i > 300 and u < 1 / 120:
            speed = rnd.randint(150, 190)
            planted[(van, speed, temp)] = ("SPEED_KMH", "HIGH")
        elif i > 300 and u < 2 / 120:
            temp = rnd.randint(20, 40)
            planted[(van, speed, temp)] = ("ENGINE_TEMP_C", "LOW")
        records.append({"ROWTIME": iso_micros(t), "VAN_ID": van, "SPEED_KMH": speed, "ENGINE_TEMP_C": temp})
    write_rows(folder, "records", records)
    flush = [
        {"ROWTIME": iso(t + timedelta(hours=h)), "VAN_ID": "FLUSH", "SPEED_KMH": 60, "ENGINE_TEMP_C": 90}
        for h in (1, 2)
    ]
    write_rows(folder, "flush", flush)
    query = (
        "SELECT VAN_ID, SPEED_KMH, ENGINE_TEMP_C, ANOMALY_SCORE, ANOMALY_EXPLANATION FROM vans.DESTINATION_SQL_STREAM"
    )
    wait_until(lambda: len(server.query(query)) >= len(records), what="every record with its explanation")
    got = sorted((r for r in server.query(query) if r[0] != "FLUSH"), key=str)
    replay = server.query(
        'SELECT "VAN_ID", "SPEED_KMH", "ENGINE_TEMP_C", ANOMALY_SCORE, ANOMALY_EXPLANATION FROM TABLE('
        'RANDOM_CUT_FOREST_WITH_EXPLANATION(CURSOR(SELECT * FROM vans."SOURCE_SQL_STREAM_001"), 100, 256, 100000, 1, true))'
    )
    assert got == sorted((r for r in replay if r[0] != "FLUSH"), key=str)
    assert sorted(r[:3] for r in got) == sorted((r["VAN_ID"], r["SPEED_KMH"], r["ENGINE_TEMP_C"]) for r in records)
    assert len(planted) >= 6
    for van, speed, temp, score, text in got:
        explanation = json.loads(text)
        assert list(explanation) == ["SPEED_KMH", "ENGINE_TEMP_C"]
        assert abs(sum(float(p["ATTRIBUTION_SCORE"]) for p in explanation.values()) - score) <= 0.0002
        if (van, speed, temp) in planted:
            column, direction = planted[(van, speed, temp)]
            other = "ENGINE_TEMP_C" if column == "SPEED_KMH" else "SPEED_KMH"
            assert float(explanation[column]["ATTRIBUTION_SCORE"]) > float(explanation[other]["ATTRIBUTION_SCORE"])
            assert explanation[column]["DIRECTION"] == direction, text


def test_kda_hotspots_program(server: Server) -> None:
    """HOTSPOTS as the developer guide's hotspot example writes it: a plain SELECT in the pump over
    `TABLE (HOTSPOTS(CURSOR(SELECT STREAM "x", "y", ... FROM "SOURCE_SQL_STREAM_001"), n, r, k))`
    into a stream with `HOTSPOTS_RESULT VARCHAR(10000)`. Generated forklift positions on a 60 x 40
    m floor, one in four from a 4 x 4 m loading bay. Every record arrives with its result, the
    results are those the same query gives over the source's rows as a table, and once the window
    is full the densest hotspot is the bay."""
    rnd = random.Random(5622)
    folder = server.state_dir.parent / "forklifts"
    run(server, "forklifts", [FORKLIFT_SOURCE.format(folder=folder)], program("kda_hotspots_of_forklift_positions.sql"))
    t = at("06:00:00")
    records = []
    for i in range(800):
        t += timedelta(milliseconds=rnd.randint(20, 200))
        bay = rnd.random() < 0.25
        x, y = (41 + 4 * rnd.random(), 12 + 4 * rnd.random()) if bay else (60 * rnd.random(), 40 * rnd.random())
        records.append({"ROWTIME": iso_micros(t), "aisle_x": x, "aisle_y": y, "forklift": f"F{i % 7}"})
    write_rows(folder, "records", records)
    # A far record: the watermark it moves lets every reading above through, in ROWTIME order.
    flush = {"ROWTIME": iso(t + timedelta(hours=1)), "aisle_x": 1.0, "aisle_y": 1.0, "forklift": "FLUSH"}
    write_rows(folder, "flush", [flush])
    query = (
        "SELECT aisle_x, aisle_y, forklift, HOTSPOTS_RESULT FROM forklifts.CONGESTION_STREAM WHERE forklift <> 'FLUSH'"
    )
    wait_until(lambda: len(server.query(query)) >= len(records), what="every reading with its hotspots")
    got = sorted(server.query(query))
    replay = server.query(
        'SELECT "aisle_x", "aisle_y", "forklift", HOTSPOTS_RESULT FROM TABLE(HOTSPOTS('
        'CURSOR(SELECT "aisle_x", "aisle_y", "forklift", ROWTIME FROM forklifts."SOURCE_SQL_STREAM_001"), 500, 1.5, 12))'
    )
    assert got == sorted(r for r in replay if r[2] != "FLUSH")
    assert sorted(r[:2] for r in got) == sorted((r["aisle_x"], r["aisle_y"]) for r in records)
    by_position = {(r[0], r[1]): json.loads(r[3])["hotspots"] for r in got}
    for r in records[500:]:
        top = by_position[(r["aisle_x"], r["aisle_y"])][0]
        assert top["minValues"][0] >= 41 - 1.5 and top["maxValues"][0] <= 45 + 1.5, top
        assert top["minValues"][1] >= 12 - 1.5 and top["maxValues"][1] <= 16 + 1.5, top


# ---- TOP_K_ITEMS_TUMBLING and COUNT_DISTINCT_ITEMS_TUMBLING, as in the reference's examples ------


def click_records(
    seed: int, n: int, page: Callable[[random.Random], str], client: Callable[[random.Random], str]
) -> list[dict]:
    """`n` page views 100 to 900 ms apart from 10:00, page and client drawn by the two callables."""
    rnd = random.Random(seed)
    t = at("10:00:00")
    records = []
    for _ in range(n):
        t += timedelta(milliseconds=rnd.randint(100, 900))
        records.append({"ROWTIME": iso_micros(t), "PAGE_PATH": page(rnd), "CLIENT_ID": client(rnd),
                        "BYTES": rnd.randint(300, 5000)})  # fmt: skip
    return records


def click_flush(records: list[dict]) -> dict:
    last = datetime.strptime(records[-1]["ROWTIME"], "%Y-%m-%dT%H:%M:%S.%fZ")
    return {"ROWTIME": iso(last + timedelta(hours=1)), "PAGE_PATH": "/flush", "CLIENT_ID": "flush", "BYTES": 0}


def window_end(record: dict, seconds: int) -> datetime:
    size = timedelta(seconds=seconds)
    return m.step_floor(datetime.strptime(record["ROWTIME"], "%Y-%m-%dT%H:%M:%S.%fZ"), size) + size


def test_kda_top_k_items_program(server: Server) -> None:
    """`SELECT STREAM * FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(...), 'PAGE_PATH', 3, 30))` in a
    pump, as in the reference's TOP_K_ITEMS_TUMBLING example 1: per thirty-second window, the three
    most viewed pages and their counts, into a stream whose columns are named PAGE and HITS (filled
    by position), each row's ROWTIME the window's end. The model counts the generated records per
    window with `Counter` (exact counts; equal counts in value order)."""
    folder = server.state_dir.parent / "top_k"
    run(server, "top_k", [CLICKS_SOURCE.format(folder=folder)], program("kda_top_k_items_tumbling.sql"))
    pages = ["/", "/search", "/cart", "/help", "/login", "/faq", "/about"]
    records = click_records(5700, 400, lambda r: r.choices(pages, weights=[10, 8, 6, 4, 4, 2, 1])[0],
                            lambda r: f"c{r.randint(0, 40)}")  # fmt: skip
    write_rows(folder, "records", [*records, click_flush(records)])
    windows: dict[datetime, Counter] = {}
    for r in records:
        windows.setdefault(window_end(r, 30), Counter())[r["PAGE_PATH"]] += 1
    expected = sorted(
        (end, page, n)
        for end, counts in windows.items()
        for page, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    )
    assert len(windows) > 3
    query = "SELECT ROWTIME, PAGE, HITS FROM top_k.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every window's three most viewed pages")
    assert sorted(server.query(query)) == expected


GUIDE = {1: "news", 2: "news", 3: "sport", 4: "film", 5: "film", 6: "kids", 7: "music"}  # 8 is in no guide


def test_kda_top_k_of_joined_reference_then_threshold_program(server: Server) -> None:
    """`TOP_K_ITEMS_TUMBLING` whose cursor joins the stream with a reference table
    (`SELECT STREAM * FROM "SOURCE_SQL_STREAM_001" JOIN GUIDE as g ON ...`), into a two-column
    stream by `SELECT STREAM *` (the relation has one ROWTIME, left out by KDA's rule for filling a
    target), then a pump reading that stream through a plain `SELECT` subquery without an alias and
    filtering it: as in an AWS sample that ranks viewed categories and triggers on the busy ones.
    The model joins and counts the generated records per window with `Counter`."""
    folder = server.state_dir.parent / "top_k_joined"
    guide = server.state_dir.parent / "guide"
    guide.mkdir(parents=True, exist_ok=True)
    (guide / "guide.csv").write_text("".join(f"{c},{g}\n" for c, g in GUIDE.items()))
    run(
        server,
        "top_k_joined",
        [
            'CREATE STREAM "SOURCE_SQL_STREAM_001" ("channel" INTEGER, "viewer" VARCHAR(8)) '
            f"WITH (format = 'json', path = '{folder}')",
            f"CREATE TABLE GUIDE (`channel` INT, `genre` STRING) USING csv OPTIONS (path '{guide}')",
        ],
        program("kda_top_k_of_joined_reference_then_threshold.sql"),
    )
    rnd = random.Random(5900)
    t = at("10:00:00")
    records = []
    for _ in range(700):
        t += timedelta(milliseconds=rnd.randint(300, 2500))
        records.append({"ROWTIME": iso_micros(t), "channel": rnd.choices(range(1, 9), weights=[6, 3, 5, 4, 2, 3, 1, 2])[0],
                        "viewer": f"v{rnd.randint(0, 50)}"})  # fmt: skip
    last = datetime.strptime(records[-1]["ROWTIME"], "%Y-%m-%dT%H:%M:%S.%fZ")
    flush = {"ROWTIME": iso(last + timedelta(hours=1)), "channel": 8, "viewer": "flush"}
    write_rows(folder, "records", [*records, flush])
    windows: dict[datetime, Counter] = {}
    for r in records:
        counts = windows.setdefault(window_end(r, 300), Counter())
        if r["channel"] in GUIDE:
            counts[GUIDE[r["channel"]]] += 1
    top = sorted(
        (end, genre, n)
        for end, counts in windows.items()
        for genre, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
    )
    busy = sorted(row for row in top if row[2] > 30)
    assert len(windows) > 3 and 0 < len(busy) < len(top)
    totals = "SELECT ROWTIME, `genre`, `numOfTunes` FROM top_k_joined.CHANNEL_TOTALS"
    triggered = "SELECT ROWTIME, `genre`, `numOfTunes` FROM top_k_joined.BUSY_GENRES"
    wait_until(lambda: len(server.query(triggered)) >= len(busy), what="every busy genre of every window")
    assert sorted(server.query(totals)) == top
    assert sorted(server.query(triggered)) == busy


def test_kda_count_distinct_items_program(server: Server) -> None:
    """`SELECT STREAM * FROM TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(...), 'CLIENT_ID', 120))` in
    a pump, as in the reference's COUNT_DISTINCT_ITEMS_TUMBLING example 1: per two-minute window,
    the number of distinct clients, into a stream of that one column (the query's ROWTIME left out
    by KDA's rule for filling a target), each row's ROWTIME the window's end. The model is Python's
    set of the clients per window."""
    folder = server.state_dir.parent / "count_distinct"
    run(
        server,
        "count_distinct",
        [CLICKS_SOURCE.format(folder=folder)],
        program("kda_count_distinct_items_tumbling.sql"),
    )
    records = click_records(
        5800, 600, lambda r: r.choice(["/", "/cart"]), lambda r: f"c{r.randint(0, r.choice([8, 30, 90]))}"
    )
    write_rows(folder, "records", [*records, click_flush(records)])
    windows: dict[datetime, set[str]] = {}
    for r in records:
        windows.setdefault(window_end(r, 120), set()).add(r["CLIENT_ID"])
    expected = sorted((end, len(clients)) for end, clients in windows.items())
    assert len(expected) > 1
    query = "SELECT ROWTIME, UNIQUE_VISITORS FROM count_distinct.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every window's count of distinct clients")
    assert sorted(server.query(query)) == expected
