"""Published KDA and s-Server programs pasted into `overjoin server` as printed (docs/semantics.md
§10): implicit ROWTIME and APPROXIMATE_ARRIVAL_TIME on source streams, `"ROWTIME"` selected by a
pump, KDA's rule for filling the target, multi-line quoted column lists and s-Server's schema
statements. The programs are the files of `tests/corpus/programs/` (their README says where each
was published); only their source streams, which KDA configures outside SQL, are declared here."""

from __future__ import annotations

import calendar
import json
import os
import random
import re
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

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


# ---- the KDA SQL reference's JOIN clause examples ------------------------------------------------

#: The page's sample data: (ROWTIME, orderid) of Orders and of Shipments, one source stream.
ORDERS = [("10:00:00", 101), ("10:00:20", 102), ("10:00:30", 103), ("10:00:40", 104), ("10:00:45", 100)]
SHIPMENTS = [("10:00:00", 100), ("10:00:45", 104), ("10:00:50", 105)]
FLUSH = at("12:00:00")  # one more order and shipment, far later: the watermark passes every window

ONE_MINUTE = m.Window.range(timedelta(minutes=1))
#: Per example: the join, the shipments' window, the output columns after "resultrowtime".
EXAMPLES = {
    1: ("INNER", m.CURRENT_ROW, ("s.orderid", "s.ROWTIME", "o.ROWTIME")),
    2: ("INNER", ONE_MINUTE, ("s.orderid", "s.ROWTIME", "o.ROWTIME")),
    3: ("RIGHT", m.CURRENT_ROW, ("s.orderid", "o.ROWTIME")),
    4: ("RIGHT", ONE_MINUTE, ("s.orderid", "s.ROWTIME", "o.ROWTIME")),
    5: ("LEFT", m.CURRENT_ROW, ("o.orderid", "o.ROWTIME")),
    6: ("LEFT", ONE_MINUTE, ("s.orderid", "s.ROWTIME", "o.ROWTIME")),
}

SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("orderid" VARCHAR(8), "orders" VARCHAR(8), "shipments" VARCHAR(8)) '
    "WITH (format = 'json', path = '{folder}')"
)

SLIDING_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (TICKER_SYMBOL VARCHAR(4), SECTOR varchar(16), CHANGE REAL, PRICE REAL) '
    "WITH (format = 'json', path = '{folder}')"
)

#: The reference's TO_TIMESTAMP page: the demo stream with a Unix time in milliseconds.
CHANGE_TIME_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" (ticker_symbol VARCHAR(4), sector VARCHAR(16), change REAL, '
    "change_time BIGINT, price REAL) WITH (format = 'json', path = '{folder}')"
)

#: The developer guide's anomaly example: heart rates from its generator script.
HEART_RATE_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("heartRate" INTEGER, "rateType" VARCHAR(20)) '
    "WITH (format = 'json', path = '{folder}')"
)

STAGGER_SOURCE = (
    'CREATE STREAM "SOURCE_SQL_STREAM_001" ("EVENT_TIME" TIMESTAMP, "TICKER" VARCHAR(4)) '
    "WITH (format = 'json', path = '{folder}')"
)


def expected_join_rows(n: int) -> Counter:
    kind, shipments_window, columns = EXAMPLES[n]
    orders = [{"orderid": i, "ROWTIME": at(t)} for t, i in ORDERS]
    shipments = [{"orderid": i, "ROWTIME": at(t)} for t, i in SHIPMENTS]
    out = m.evaluate(
        [m.Input("o", orders, "ROWTIME", ONE_MINUTE), m.Input("s", shipments, "ROWTIME", shipments_window)],
        [m.Join(kind, m.equi("o", "orderid", "s", "orderid"))],
    )

    def value(o: m.Out, ref: str) -> object:
        alias, column = ref.split(".")
        row = o.rows[alias]
        return None if row is None else row[column]

    return Counter((o.rowtime, *(value(o, c) for c in columns)) for o in out)


@pytest.mark.parametrize("n", sorted(EXAMPLES))
def test_kda_sqlref_join_example(server: Server, n: int) -> None:
    """The six stream-to-stream JOIN examples, each a whole program (ORDERS_STREAM and
    SHIPMENTS_STREAM pumped from one source stream whose records carry ROWTIME, then the
    example's OUTPUT_STREAM pump), against the reference model over the same rows."""
    folder = server.state_dir.parent / f"kda_join_{n}"
    # A late row would be dropped by KDA too; lateness keeps the comparison exact whichever of the
    # two chained pumps' files the join reads first.
    run(server, f"kda_join_{n}", ["SET spark.overjoin.lateness = 1 hour", SOURCE.format(folder=folder)],
        program(f"kda_sqlref_join_example_{n}.sql"))  # fmt: skip
    records = [{"ROWTIME": iso(at(t)), "orderid": str(i), "orders": "1"} for t, i in ORDERS]
    records += [{"ROWTIME": iso(at(t)), "orderid": str(i), "shipments": "2"} for t, i in SHIPMENTS]
    records += [
        {"ROWTIME": iso(FLUSH), "orderid": "999", "orders": "1"},
        {"ROWTIME": iso(FLUSH), "orderid": "999", "shipments": "2"},
    ]
    write_rows(folder, "records", records)

    expected = expected_join_rows(n)
    db = f"kda_join_{n}"

    def output() -> Counter:
        rows = server.query(f"SELECT * FROM {db}.OUTPUT_STREAM")
        return Counter(tuple(r[:-1]) for r in rows if r[0] < FLUSH - timedelta(hours=1))

    wait_until(lambda: sum(output().values()) >= sum(expected.values()), what=f"example {n}'s output rows")
    assert output() == expected
    # Each output row keeps the join's ROWTIME (its first column here) as its own.
    assert all(r[0] == r[-1] for r in server.query(f"SELECT * FROM {db}.OUTPUT_STREAM"))
    # The first pumps: "ROWTIME" selected as a value fills orderrowtime; the row's ROWTIME is the source row's.
    orders = server.query(f"SELECT orderid, orderrowtime, ROWTIME FROM {db}.ORDERS_STREAM WHERE orderid < 999")
    assert sorted(orders) == sorted((i, at(t), at(t)) for t, i in ORDERS)


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


def test_source_stream_without_rowtime_gets_kdas_implicit_columns(server: Server) -> None:
    """The developer guide's STEP over ROWTIME and APPROXIMATE_ARRIVAL_TIME program, as printed, over
    a source stream that declares neither: ROWTIME from the records' field (the arrival where a
    record has none), APPROXIMATE_ARRIVAL_TIME from the file's arrival."""
    folder = server.state_dir.parent / "ts"
    run(server, "ts", [
        'CREATE STREAM "SOURCE_SQL_STREAM_001" ("TICKER_SYMBOL" VARCHAR(4), "PRICE" DOUBLE) '
        f"WITH (format = 'json', path = '{folder}', rowtime = 'ROWTIME')",
    ], program("kda_devguide_timestamps_rowtime.sql"))  # fmt: skip
    rows = [("10:00:05", "ABC"), ("10:00:30", "ABC"), ("10:00:40", "DEF"), ("10:01:10", "ABC"), ("10:03:00", "XYZ")]
    write_rows(folder, "a", [{"ROWTIME": iso(at(t)), "TICKER_SYMBOL": s, "PRICE": 1.0} for t, s in rows])
    arrived = arrival(folder / "a.json")
    minute = arrived.replace(second=0, microsecond=0)
    # The last window (10:03) stays open: the watermark is 10:03:00.
    want = sorted(
        [(at("10:00:00"), minute, "ABC", 2), (at("10:00:00"), minute, "DEF", 1), (at("10:01:00"), minute, "ABC", 1)]
    )
    query = "SELECT ingest_time, APPROXIMATE_ARRIVAL_TIME, ticker_symbol, symbol_count FROM ts.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= 3, what="the closed windows")
    assert sorted(server.query(query)) == want
    # A plain SELECT of the source: the records' ROWTIME, or the arrival where a record has none.
    write_rows(folder, "b", [{"TICKER_SYMBOL": "NOT", "PRICE": 2.0}])
    b_arrived = arrival(folder / "b.json")
    got = server.query(
        "SELECT TICKER_SYMBOL, ROWTIME, APPROXIMATE_ARRIVAL_TIME FROM ts.SOURCE_SQL_STREAM_001 WHERE PRICE = 2.0"
    )
    assert len(got) == 1 and got[0][0] == "NOT"
    assert abs((got[0][1] - b_arrived).total_seconds()) < 0.01 and got[0][1] == got[0][2]
    # SELECT * returns the declared columns and ROWTIME, as KDA's `*` leaves its system columns out.
    star = server.query("SELECT * FROM ts.SOURCE_SQL_STREAM_001 WHERE PRICE = 1.0 AND TICKER_SYMBOL = 'DEF'")
    assert star == [("DEF", 1.0, at("10:00:40"))]


# ---- the published orders/items application: multi-line, tab-indented column lists --------------


def test_orders_items_application_with_tab_indented_column_lists(server: Server) -> None:
    folder = server.state_dir.parent / "oi"
    products = folder / "products"
    products.mkdir(parents=True)
    (products / "p.csv").write_text("productId,productName\n7,widget\n")
    run(server, "oi", [
        "SET spark.overjoin.lateness = 1 hour",
        "CREATE TABLE products (`productId` INT, `productName` STRING) USING csv "
        f"OPTIONS (path '{products}', header 'true')",
        'CREATE STREAM "SOURCE_SQL_STREAM_001" ("orderId" INTEGER, "orderAmount" DECIMAL(1,1), '
        '"orderStatus" VARCHAR(8), "orderDateTime" TIMESTAMP, "shipToName" VARCHAR(32), '
        '"shipToAddress" VARCHAR(32), "shipToCity" VARCHAR(32), "shipToState" VARCHAR(16), '
        '"shipToZip" VARCHAR(16), "recordType" VARCHAR(16), "itemId" INTEGER, "itemAmount" DECIMAL(1,1), '
        '"itemStatus" VARCHAR(8), "itemQuantity" INTEGER) '
        f"WITH (format = 'json', path = '{folder}/src')",
    ], program("github_rvvittal_kda_orders_setup.sql"))  # fmt: skip
    order = {"orderId": 1, "orderAmount": 0.5, "orderStatus": "NEW", "orderDateTime": iso(at("10:00:00")),
             "shipToName": "Ann", "shipToAddress": "1 Main St", "shipToCity": "Town", "shipToState": "WA",
             "shipToZip": "98101", "recordType": "Order", "ROWTIME": iso(at("10:00:00"))}  # fmt: skip
    item = {"orderId": 1, "itemId": 7, "itemAmount": 0.2, "itemStatus": "OK", "itemQuantity": 3,
            "recordType": "OrderItem", "ROWTIME": iso(at("10:00:20"))}  # fmt: skip
    flush = {"orderId": 99, "recordType": "Order", "ROWTIME": iso(at("12:00:00"))}
    write_rows(folder / "src", "a", [order, item, flush])
    query = "SELECT event_ts, orderId, shipToCity, itemId, itemQuantity, productName, ROWTIME FROM oi.ORDER_ITEM_ENRICHED_STREAM"
    wait_until(lambda: server.query(query), what="the enriched row")
    # The join's ROWTIME (the later of the two rows, §4) fills "event_ts" and is the row's ROWTIME.
    assert server.query(query) == [(at("10:00:20"), 1, "Town", 7, 3, "widget", at("10:00:20"))]


# ---- s-Server: schema statements ----------------------------------------------------------------


def test_sserver_program_with_schema_statements(server: Server) -> None:
    """s-Server's pump example as printed (CREATE OR REPLACE SCHEMA, SET SCHEMA '"Test"', a STOPPED
    pump with a column list over several lines), then `ALTER PUMP "Test".* START | STOP`."""
    conn = server.hive()
    try:
        cur = conn.cursor()
        for s in statements(program("sserver_pump_concept.sql")):
            cur.execute(s)
        # SET SCHEMA changed this session's schema: the next statements need no qualifier.
        cur.execute(
            "INSERT INTO `OrderDataWithCreateTime` VALUES ('o1', 'u1', 'FR', 'p1', 2, 3.5, 4.0, TIMESTAMP '2024-01-01 10:00:00')"
        )
        cur.execute('ALTER PUMP "Test".* START')
        cur.close()
    finally:
        conn.close()
    state = {r[0]: r[1] for r in server.query("SHOW PUMPS")}
    assert state["200-ConditionedOrdersPump"] == "RUNNING"
    wait_until(lambda: server.query("SELECT * FROM test.orderdata"), what="the pumped row")
    assert server.query("SELECT key_order, country, quantity, eur, usd, ROWTIME FROM test.orderdata") == [
        ("o1", "FR", 2, 3.5, 4.0, at("10:00:00"))
    ]
    server.execute('ALTER PUMP "Test".* STOP')
    assert {r[0]: r[1] for r in server.query("SHOW PUMPS")}["200-ConditionedOrdersPump"] == "STOPPED"
    server.execute('DROP PUMP "200-ConditionedOrdersPump"')


# ---- every program of the corpus and of examples/, statement by statement, over JDBC -------------

#: What KDA configures outside SQL: each program's source streams (and reference tables).
SOURCES: dict[str, list[str]] = {
    **{f"kda_sqlref_join_example_{n}.sql": [SOURCE] for n in EXAMPLES},
    "kda_devguide_timestamps_rowtime.sql": [
        'CREATE STREAM "SOURCE_SQL_STREAM_001" ("TICKER_SYMBOL" VARCHAR(4), "PRICE" DOUBLE) '
        "WITH (format = 'json', path = '{folder}')"
    ],
    "github_rvvittal_kda_orders_setup.sql": [
        "CREATE TABLE products (`productId` INT, `productName` STRING) USING json OPTIONS (path '{folder}/p')",
        'CREATE STREAM "SOURCE_SQL_STREAM_001" ("orderId" INTEGER, "recordType" VARCHAR(16), "orderAmount" '
        'DECIMAL(1,1), "orderStatus" VARCHAR(8), "orderDateTime" TIMESTAMP, "shipToName" VARCHAR(32), '
        '"shipToAddress" VARCHAR(32), "shipToCity" VARCHAR(32), "shipToState" VARCHAR(16), "shipToZip" VARCHAR(16), '
        '"itemId" INTEGER, "itemAmount" DECIMAL(1,1), "itemStatus" VARCHAR(8), "itemQuantity" INTEGER) '
        "WITH (format = 'json', path = '{folder}/s')",
    ],
    "sserver_pump_concept.sql": [],
    **{f"kda_devguide_sliding_window_{n}.sql": [SLIDING_SOURCE] for n in (1, 2, 3)},
    "kda_devguide_partial_results.sql": [SLIDING_SOURCE],
    "kda_devguide_stagger_window.sql": [STAGGER_SOURCE],
    "kda_devguide_continuous_filter.sql": [SLIDING_SOURCE],
    "kda_sqlref_to_timestamp.sql": [CHANGE_TIME_SOURCE],
    "kda_sqlref_regex_log_parse.sql": [SLIDING_SOURCE],
    "kda_devguide_anomaly_detection.sql": [HEART_RATE_SOURCE],
    "kda_sqlref_top_k_items.sql": [SLIDING_SOURCE],
    "kda_sqlref_count_distinct_items.sql": [SLIDING_SOURCE],
    "app.sql": [],
}


def test_every_program_runs_statement_by_statement_over_jdbc(server: Server) -> None:
    """No statement of any published program or example fails when it is pasted as written."""
    programs = all_programs()
    assert {p.name for p in programs} == set(SOURCES), "a program without its sources here"
    for i, path in enumerate(programs):
        folder = server.state_dir.parent / f"corpus_{i}"
        for sub in ("", "p", "s"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        text = path.read_text().replace("${DATA}", str(folder))
        for sub in ("orders", "shipments", "products"):
            (folder / sub).mkdir(exist_ok=True)
        run(server, f"corpus_{i}", [s.format(folder=folder) for s in SOURCES[path.name]], text)
    names = {r[0] for r in server.query("SHOW PUMPS")}
    failed = [r for r in server.query("SHOW PUMPS") if r[1] == "FAILED"]
    assert names and not failed, json.dumps([list(map(str, r)) for r in failed])
    for pump in names:
        server.execute(f"DROP PUMP `{pump}`")


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


# ---- the developer guide's sliding windows, in pumps ---------------------------------------------


def ticker_rows(seed: int, n: int = 36) -> list[dict]:
    """Demo-stream records in rowtime order, one second apart at least (no ties, so ROWS windows do
    not depend on arrival order); prices and changes in quarters, which REAL holds exactly."""
    rnd = random.Random(seed)
    t = at("10:00:00")
    rows = []
    for _ in range(n):
        t += timedelta(seconds=rnd.randint(1, 15))
        price = rnd.randint(40, 400) / 4
        rows.append({"ROWTIME": t, "TICKER_SYMBOL": rnd.choice(["ABC", "DEF", "XYZ"]), "SECTOR": "TECH",
                     "CHANGE": rnd.randint(-20, 20) / 4, "PRICE": price})  # fmt: skip
    return rows


#: Per example: the select list's columns after the ticker, as reference-model calls, and the window.
SLIDING = {
    1: (m.Window.range(timedelta(minutes=1)), [m.SlidingCall("MIN", "PRICE"), m.SlidingCall("MAX", "PRICE"), m.SlidingCall("AVG", "PRICE")], ()),
    2: (m.Window.range(timedelta(seconds=10)), [m.SlidingCall("AVG", "PCT")], ()),
    3: (None, [], ("PRICE",)),
}  # fmt: skip


def expected_sliding(n: int, rows: list[dict]) -> list[tuple]:
    by_ticker = lambda r: r["TICKER_SYMBOL"]  # noqa: E731
    for r in rows:
        r["PCT"] = r["CHANGE"] / (r["PRICE"] - r["CHANGE"]) if r["PRICE"] != r["CHANGE"] else None
    if n == 3:  # avg over the last 2 rows, and over the last 10
        last2 = m.sliding_window(rows, "ROWTIME", m.Window.rows(2), [m.SlidingCall("AVG", "PRICE")], by_ticker,
                                 keep=("TICKER_SYMBOL", "PRICE"))  # fmt: skip
        last10 = m.sliding_window(rows, "ROWTIME", m.Window.rows(10), [m.SlidingCall("AVG", "PRICE")], by_ticker,
                                  keep=("TICKER_SYMBOL", "PRICE"))  # fmt: skip
        ten = {(r[0], r[1]): r[-1] for r in last10}
        return sorted(((*r, ten[(r[0], r[1])]) for r in last2), key=m.sort_key)
    window, calls, _ = SLIDING[n]
    assert window is not None
    return m.sliding_window(rows, "ROWTIME", window, calls, by_ticker, keep=("TICKER_SYMBOL",))


def rounded(rows: list[tuple]) -> list[tuple]:
    return sorted((tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows), key=m.sort_key)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_kda_devguide_sliding_window_program(server: Server, n: int) -> None:
    """The developer guide's three sliding-window applications as printed, each in a pump, against
    the reference model over the same generated records (seed printed on failure)."""
    seed = 4200 + n
    folder = server.state_dir.parent / f"sliding_{n}"
    db = f"sliding_{n}"
    run(server, db, [SLIDING_SOURCE.format(folder=folder)], program(f"kda_devguide_sliding_window_{n}.sql"))
    rows = ticker_rows(seed)
    flush = {
        "ROWTIME": rows[-1]["ROWTIME"] + timedelta(hours=1),
        "TICKER_SYMBOL": "ZZZ",
        "SECTOR": "X",
        "CHANGE": 0.0,
        "PRICE": 1.0,
    }
    write_rows(folder, "records", [{**r, "ROWTIME": iso(r["ROWTIME"])} for r in [*rows, flush]])
    expected = rounded(expected_sliding(n, rows))
    query = f"SELECT ROWTIME, * FROM {db}.DESTINATION_SQL_STREAM"

    def got() -> list[tuple]:
        return rounded([r[:-1] for r in server.query(query)])

    wait_until(lambda: len(got()) >= len(expected), what=f"sliding example {n}'s rows (seed {seed})")
    assert got() == expected, f"seed {seed}"


# ---- the developer guide's stagger window, in a pump ----------------------------------------------


def test_kda_devguide_stagger_window_program(server: Server) -> None:
    """The developer guide's stagger-window application as printed, over the page's sample records
    (six of a ticker, ten seconds apart, one EVENT_TIME): one window per ticker, opened by its first
    record and a minute long (docs/semantics.md §13), each row's ROWTIME the window's end."""
    folder = server.state_dir.parent / "stagger"
    run(server, "stagger", [STAGGER_SOURCE.format(folder=folder)], program("kda_devguide_stagger_window.sql"))
    day = datetime(2018, 8, 1)

    def t(clock: str, micros: int = 0) -> datetime:
        h, mi, s = (int(x) for x in clock.split(":"))
        return day.replace(hour=h, minute=mi, second=s, microsecond=micros)

    amzn, intc = t("20:17:20", 797945), t("20:18:21", 43084)
    ingest = ["20:17:30", "20:17:40", "20:17:50", "20:18:00", "20:18:10", "20:18:21"]
    ingest += ["20:18:31", "20:18:41", "20:18:51", "20:19:01", "20:19:11", "20:19:21"]
    records = [
        {
            "EVENT_TIME": (amzn if i < 6 else intc).isoformat(),
            "TICKER": "AMZN" if i < 6 else "INTC",
            "ROWTIME": iso(t(c)),
        }
        for i, c in enumerate(ingest)
    ]
    records.append({"EVENT_TIME": t("21:00:00").isoformat(), "TICKER": "ZZZ", "ROWTIME": iso(t("21:00:00"))})
    write_rows(folder, "records", records)
    query = "SELECT event_time, ticker_symbol, ticker_count, ROWTIME FROM stagger.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= 2, what="the two closed windows")
    assert sorted(server.query(query)) == [(amzn, "AMZN", 6, t("20:18:30")), (intc, "INTC", 6, t("20:19:31"))]


# ---- the getting-started exercise's continuous filter: SIMILAR TO ---------------------------------


def test_kda_devguide_continuous_filter_program(server: Server) -> None:
    """The getting-started exercise's "Continuous filter" application as printed: a pump keeps the
    demo stream's rows whose sector SIMILAR TO '%TECH%' matches (the whole sector, `%` any run of
    characters), into a stream whose first column is named `symbol` where the select list says
    `ticker_symbol` (KDA fills by position). Generated records; the model is Python's own test
    for a substring, which is what '%TECH%' means."""
    rnd = random.Random(4300)
    folder = server.state_dir.parent / "filter"
    run(server, "filter", [SLIDING_SOURCE.format(folder=folder)], program("kda_devguide_continuous_filter.sql"))
    sectors = ["TECHNOLOGY", "FINANCIAL", "ENERGY", "HIGHTECH", "tech", "TECH", "MEDICAL", "BIOTECHNOLOGY"]
    t = at("10:00:00")
    rows: list[tuple[str, str, float, float]] = []
    records = []
    for _ in range(40):
        t += timedelta(seconds=rnd.randint(0, 5))
        row = (rnd.choice(["ABC", "DEF", "XYZ"]), rnd.choice(sectors), rnd.randint(-8, 8) / 4, rnd.randint(4, 400) / 4)
        rows.append(row)
        records.append(
            {"ROWTIME": iso(t), "TICKER_SYMBOL": row[0], "SECTOR": row[1], "CHANGE": row[2], "PRICE": row[3]}
        )
    write_rows(folder, "records", records)
    expected = sorted(r for r in rows if "TECH" in r[1])
    assert expected and len(expected) < len(rows)
    query = "SELECT symbol, sector, CHANGE, price FROM filter.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the filtered rows")
    assert sorted(server.query(query)) == expected


def test_kda_sqlref_to_timestamp_program(server: Server) -> None:
    """The reference's TO_TIMESTAMP example as printed: `change_time`, BIGINT milliseconds since
    1970-01-01 00:00:00 UTC, becomes a TIMESTAMP (KDA's TO_TIMESTAMP; Spark's reads seconds)."""
    rnd = random.Random(4400)
    folder = server.state_dir.parent / "to_ts"
    run(server, "to_ts", [CHANGE_TIME_SOURCE.format(folder=folder)], program("kda_sqlref_to_timestamp.sql"))
    t = at("10:00:00")
    records, expected = [], []
    for _ in range(12):
        t += timedelta(seconds=rnd.randint(0, 9))
        changed = t - timedelta(milliseconds=rnd.randint(0, 10**8))
        ms = calendar.timegm(changed.timetuple()) * 1000 + changed.microsecond // 1000
        records.append({"ROWTIME": iso(t), "ticker_symbol": "ABC", "sector": "TECH", "change": 0.5,
                        "change_time": ms, "price": 2.25})  # fmt: skip
        expected.append(("ABC", "TECH", 0.5, changed.replace(microsecond=changed.microsecond // 1000 * 1000), 2.25))
    write_rows(folder, "records", records)
    query = "SELECT ticker_symbol, sector, change, change_time, price FROM to_ts.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the converted rows")
    assert sorted(server.query(query)) == sorted(expected)


def test_kda_sqlref_regex_log_parse_program(server: Server) -> None:
    """The reference's REGEX_LOG_PARSE example 2 as printed: a subquery's row of the regular
    expression's groups (COLUMN1, COLUMN2; NULL when the sector does not match), read by the
    pump as T.REC.COLUMN1. The subquery does not select ROWTIME; as every KDA stream, it has one.
    The model is Python's `re.fullmatch` with the same expression."""
    rnd = random.Random(4500)
    folder = server.state_dir.parent / "regex_parse"
    run(server, "regex_parse", [SLIDING_SOURCE.format(folder=folder)], program("kda_sqlref_regex_log_parse.sql"))
    sectors = ["ENERGY", "HEALTHCARE", "TECHNOLOGY", "FINANCIAL", "RETAIL", "ER", "E"]
    t = at("10:00:00")
    records, expected = [], []
    for _ in range(30):
        t += timedelta(seconds=rnd.randint(0, 5))
        sector = rnd.choice(sectors)
        records.append({"ROWTIME": iso(t), "TICKER_SYMBOL": "ABC", "SECTOR": sector, "CHANGE": 0.0, "PRICE": 1.0})
        m = re.fullmatch(r".*([E].).*([R].*)", sector)
        expected.append((sector, *(m.groups() if m else (None, None))))
    write_rows(folder, "records", records)
    query = "SELECT sector, match1, match2 FROM regex_parse.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="the parsed rows")
    assert sorted(server.query(query), key=str) == sorted(expected, key=str)


# ---- the developer guide's anomaly detection: RANDOM_CUT_FOREST, then a sorted stream -------------


def test_kda_devguide_anomaly_detection_program(server: Server) -> None:
    """The developer guide's anomaly-detection application as printed: one pump scores each record
    with RANDOM_CUT_FOREST (default parameters) into TEMP_STREAM, another sorts each second of it by
    descending score into the destination (docs/semantics.md §11, §14). Records from the guide's
    generator (a heart rate of 60-100, about 1 in 100 of 150-200). Every record arrives with its
    score, the scores are exactly those the same query gives over the source's rows as a table
    (a plain SELECT of the same server, reading the stream as a table), and the high rates score
    above every normal one."""
    rnd = random.Random(4600)
    folder = server.state_dir.parent / "anomaly"
    run(server, "anomaly", [HEART_RATE_SOURCE.format(folder=folder)], program("kda_devguide_anomaly_detection.sql"))
    t = at("10:00:00")
    records = []
    for i in range(600):
        t += timedelta(milliseconds=rnd.randint(50, 400))
        is_high = i > 200 and rnd.random() < 0.02
        rate = rnd.randint(150, 200) if is_high else rnd.randint(60, 100)
        records.append({"ROWTIME": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "heartRate": rate,
                        "rateType": "HIGH" if is_high else "NORMAL"})  # fmt: skip
    write_rows(folder, "records", records)
    # Two far records: the first closes every second of the sort, the second releases the first.
    flush = [{"ROWTIME": iso(t + timedelta(hours=h)), "heartRate": 70, "rateType": "FLUSH"} for h in (1, 2)]
    write_rows(folder, "flush", flush)
    query = "SELECT `heartRate`, `rateType`, ANOMALY_SCORE FROM anomaly.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(records), what="every record with its score")
    got = sorted(r for r in server.query(query) if r[1] != "FLUSH")
    replay = sorted(
        r
        for r in server.query(
            'SELECT "heartRate", "rateType", ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST('
            'CURSOR(SELECT * FROM anomaly."SOURCE_SQL_STREAM_001")))'
        )
        if r[1] != "FLUSH"
    )
    assert got == replay
    assert sorted((r[0], r[1]) for r in got) == sorted((r["heartRate"], r["rateType"]) for r in records)
    normal = [r[2] for r in got if r[1] == "NORMAL"]
    high = [r[2] for r in got if r[1] == "HIGH"]
    assert high and min(high) > max(normal)


# ---- the reference's TOP_K_ITEMS_TUMBLING example ---------------------------------------------------


def test_kda_sqlref_top_k_items_program(server: Server) -> None:
    """The reference's TOP_K_ITEMS_TUMBLING example 1 as printed: per one-minute window of the demo
    stream, its five most frequent ticker symbols and their counts, into a stream whose columns are
    named TICKER_SYMBOL and MOST_FREQUENT_VALUES (filled by position), each row's ROWTIME the
    window's end. The model counts the generated records per minute in Python (exact counts; equal
    counts in symbol order)."""
    rnd = random.Random(4700)
    folder = server.state_dir.parent / "top_k"
    run(server, "top_k", [SLIDING_SOURCE.format(folder=folder)], program("kda_sqlref_top_k_items.sql"))
    symbols = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG"]
    t = at("10:00:00")
    records = []
    for _ in range(400):
        t += timedelta(milliseconds=rnd.randint(100, 900))
        symbol = rnd.choices(symbols, weights=[9, 7, 6, 5, 4, 2, 1])[0]
        records.append({"ROWTIME": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "TICKER_SYMBOL": symbol, "SECTOR": "TECH",
                        "CHANGE": 0.0, "PRICE": 1.0})  # fmt: skip
    flush = {"ROWTIME": iso(t + timedelta(hours=1)), "TICKER_SYMBOL": "ZZZ", "SECTOR": "X", "CHANGE": 0.0, "PRICE": 1.0}
    write_rows(folder, "records", [*records, flush])
    windows: dict[datetime, Counter] = {}
    for r in records:
        when = datetime.strptime(r["ROWTIME"], "%Y-%m-%dT%H:%M:%S.%fZ")
        windows.setdefault(when.replace(second=0, microsecond=0) + timedelta(minutes=1), Counter())[
            r["TICKER_SYMBOL"]
        ] += 1
    expected = sorted(
        (end, symbol, n)
        for end, counts in windows.items()
        for symbol, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    )
    query = "SELECT ROWTIME, TICKER_SYMBOL, MOST_FREQUENT_VALUES FROM top_k.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every window's five most frequent symbols")
    assert sorted(server.query(query)) == expected


def test_kda_sqlref_count_distinct_items_program(server: Server) -> None:
    """The reference's COUNT_DISTINCT_ITEMS_TUMBLING example 1 as printed: per one-minute window of
    the demo stream, the number of distinct ticker symbols, into a stream of that one column (the
    query's ROWTIME left out by KDA's rule for filling a target), each row's ROWTIME the window's
    end. The model is Python's set of the symbols per minute."""
    rnd = random.Random(4800)
    folder = server.state_dir.parent / "count_distinct"
    run(
        server, "count_distinct", [SLIDING_SOURCE.format(folder=folder)], program("kda_sqlref_count_distinct_items.sql")
    )
    t = at("10:00:00")
    records = []
    windows: dict[datetime, set[str]] = {}
    for _ in range(300):
        t += timedelta(milliseconds=rnd.randint(100, 900))
        symbol = f"S{rnd.randint(0, rnd.choice([5, 20, 60]))}"
        records.append({"ROWTIME": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "TICKER_SYMBOL": symbol, "SECTOR": "TECH",
                        "CHANGE": 0.0, "PRICE": 1.0})  # fmt: skip
        windows.setdefault(t.replace(second=0, microsecond=0) + timedelta(minutes=1), set()).add(symbol)
    flush = {"ROWTIME": iso(t + timedelta(hours=1)), "TICKER_SYMBOL": "ZZZ", "SECTOR": "X", "CHANGE": 0.0, "PRICE": 1.0}
    write_rows(folder, "records", [*records, flush])
    expected = sorted((end, len(symbols)) for end, symbols in windows.items())
    query = "SELECT ROWTIME, NUMBER_OF_DISTINCT_ITEMS FROM count_distinct.DESTINATION_SQL_STREAM"
    wait_until(lambda: len(server.query(query)) >= len(expected), what="every window's count of distinct symbols")
    assert sorted(server.query(query)) == expected
