"""s-Server's statements that SQLstream programs use, run over JDBC as such programs write them
(docs/server.md, "s-Server's statements"; docs/semantics.md §10-11): schema names with dots and
dashes, SET PATH, DROP SCHEMA ... CASCADE, ALTER PUMP / ALTER STREAM lists and RESET, the t-sort
(ORDER BY ... WITHIN), foreign streams over FILE_SERVER, and LISTAGG in a streaming aggregate.

The programs here are written for these tests in the style of s-Server applications (quoted names,
SET SCHEMA '"x"', column lists over several lines). What each pump should write is computed in
this file from the rows the test sends, not read back from overjoin."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.server.kda import statements
from tests.server.serverproc import Server, wait_until

pytestmark = pytest.mark.server

DAY = datetime(2024, 3, 1)


def at(clock: str) -> datetime:
    h, mi, s = (int(x) for x in clock.split(":"))
    return DAY.replace(hour=h, minute=mi, second=s)


def escaped(schema: str) -> str:
    """The database of an s-Server schema name, as docs/server.md defines it (written here from the
    rule, not taken from overjoin): letters and digits stay, `_` is `__`, any other character `_` and
    the hex of its UTF-8 bytes."""
    if re.fullmatch(r"[A-Za-z0-9_]+", schema):
        return schema.lower()
    out = []
    for b in schema.encode("utf-8"):
        c = chr(b)
        out.append(c.lower() if c.isascii() and c.isalnum() else "__" if c == "_" else f"_{b:02x}")
    return "".join(out)


def run(server: Server, script: str) -> list[list[tuple]]:
    """Runs a script statement by statement in one JDBC session; the rows of each statement."""
    conn = server.hive()
    results = []
    try:
        cur = conn.cursor()
        for s in statements(script):
            try:
                cur.execute(s)
            except Exception as e:
                raise AssertionError(f"statement failed:\n{s}\n-> {str(e)[:1500]}") from None
            results.append([tuple(r) for r in cur.fetchall()] if cur.description else [])
        cur.close()
    finally:
        conn.close()
    return results


def error_of(server: Server, *sql: str) -> str:
    """The error of the last statement, the ones before it run in the same session."""
    conn = server.hive()
    try:
        cur = conn.cursor()
        for s in sql[:-1]:
            cur.execute(s)
        with pytest.raises(Exception) as info:
            cur.execute(sql[-1])
        # The server's message as it wrote it (str() of pyhive's error is the whole Thrift response,
        # with quotes escaped).
        status = getattr(info.value.args[0], "status", None) if info.value.args else None
        return status.errorMessage if status is not None else str(info.value)
    finally:
        conn.close()


def pumps(server: Server) -> dict[str, tuple]:
    return {r[0]: r for r in server.query("SHOW PUMPS")}


def insert(server: Server, table: str, rows: list[tuple]) -> None:
    """One INSERT (one file of the durable stream) of (value, ..., ROWTIME) rows."""
    values = ", ".join(
        "(" + ", ".join(f"TIMESTAMP '{v:%Y-%m-%d %H:%M:%S}'" if isinstance(v, datetime) else repr(v) for v in r) + ")"
        for r in rows
    )
    server.execute(f"INSERT INTO {table} VALUES {values}")


def settle(server: Server, pump: str) -> None:
    """Waits until the pump has read everything there is (SHOW PUMPS: running and idle)."""
    wait_until(lambda: server.settled(pump), what=f"pump {pump} idle")


def test_schema_with_dots_and_dashes_runs_as_written(server: Server) -> None:
    """A program whose schema is "plant-3.sensors-1.0": schema, stream, view and pump statements name
    it in double quotes, SET SCHEMA and SET PATH take it, and the pump filters what arrives. (The
    view names ROWTIME: a view gets no implicit one, docs/semantics.md §10.)"""
    schema = "plant-3.sensors-1.0"
    db = escaped(schema)
    results = run(
        server,
        f"""
CREATE OR REPLACE SCHEMA "{schema}" DESCRIPTION 'vibration of the presses';
SET SCHEMA '"{schema}"';
SET PATH '"{schema}"';

CREATE OR REPLACE STREAM "{schema}"."vibration" (
    "machine" VARCHAR(16),
    "mm_s" DOUBLE
)
DESCRIPTION 'one row per reading';

CREATE OR REPLACE STREAM "{schema}"."alerts" (
    "machine" VARCHAR(16),
    "mm_s" DOUBLE
);

CREATE OR REPLACE VIEW "{schema}"."too_strong" AS
    SELECT STREAM ROWTIME, "machine", "mm_s"
    FROM "{schema}"."vibration"
    WHERE "mm_s" > 7.1;

CREATE OR REPLACE PUMP "{schema}"."alert-pump" STOPPED AS
INSERT INTO "{schema}"."alerts" (
    "machine", "mm_s")
SELECT STREAM "machine", "mm_s"
FROM "{schema}"."too_strong";

ALTER PUMP "{schema}".* START;
SELECT current_database();
SHOW STREAMS;
""",
    )
    assert results[-2] == [(db,)]  # SET SCHEMA moved the session to the schema's database
    assert {r[0] for r in results[-1]} == {"vibration", "alerts"}
    assert (db,) in server.query("SHOW DATABASES")
    readings = [("press-1", 3.2, at("08:00:01")), ("press-2", 9.4, at("08:00:02")),
                ("press-1", 7.1, at("08:00:03")), ("press-3", 11.0, at("08:00:04"))]  # fmt: skip
    insert(server, f"{db}.vibration", readings)
    expected = sorted((m, v, t) for m, v, t in readings if v > 7.1)
    wait_until(lambda: len(server.query(f"SELECT * FROM {db}.alerts")) >= len(expected), what="the alerts")
    settle(server, "alert-pump")
    assert sorted(server.query(f"SELECT machine, mm_s, ROWTIME FROM {db}.alerts")) == expected
    # SHOW PUMPS and DESCRIBE PUMP name the schema as the program wrote it.
    assert pumps(server)["alert-pump"][2] == f'"{schema}".alerts'
    described = dict(server.query('DESCRIBE PUMP "alert-pump"'))
    assert described["schema"] == described["database"] == f'"{schema}"'
    # A stream of a schema that does not exist: the error names it as written.
    message = error_of(server, 'CREATE OR REPLACE STREAM "plant-9.x"."s" ("a" INTEGER)')
    assert '"plant-9.x".s' in message and "does not exist" in message
    # SET PATH names where functions are looked up: another schema than the current one is
    # refused (spark.sql.path.enabled is off), saying what to write.
    server.execute('CREATE OR REPLACE SCHEMA "plant-4"')
    message = error_of(server, f"SET SCHEMA '\"{schema}\"'", "SET PATH '\"plant-4\"'")
    assert 'schema "plant-4"' in message and "SET SCHEMA" in message
    assert "does not exist" in error_of(server, "SET PATH '\"plant-404\"'")
    server.execute(f'ALTER PUMP "{schema}"."alert-pump" STOP', 'DROP PUMP "alert-pump"')


def test_alter_stream_reset_starts_the_readers_over(server: Server) -> None:
    """s-Server's RESET lets a pipeline started again send rows of earlier times: the pump that
    counts a stream's rows per minute counts the rows sent after the reset, whose times are before
    everything it had seen (without the reset they would be late, and dropped)."""
    schema = "ward-2.v1"
    db = escaped(schema)
    run(
        server,
        f"""
CREATE OR REPLACE SCHEMA "{schema}";
SET SCHEMA '"{schema}"';
CREATE OR REPLACE STREAM "beats" ("bed" VARCHAR(8), "bpm" INTEGER);
CREATE OR REPLACE STREAM "per_minute" ("bed" VARCHAR(8), "n" BIGINT);
CREATE OR REPLACE PUMP "{schema}"."count-pump" AS
INSERT INTO "{schema}"."per_minute"
SELECT STREAM "bed", COUNT(*)
FROM "{schema}"."beats"
GROUP BY "bed", FLOOR(ROWTIME TO MINUTE);
""",
    )

    def closed_windows(rows: list[tuple]) -> Counter:
        """(bed, window end) -> count, for the windows the rows' latest time has closed (lateness 0)."""
        latest = max(t for _, _, t in rows)
        out: Counter = Counter()
        for bed, _, t in rows:
            end = t.replace(second=0) + timedelta(minutes=1)
            if end <= latest:
                out[(bed, end)] += 1
        return out

    before = [("a", 61, at("10:00:10")), ("a", 62, at("10:00:20")), ("b", 70, at("10:00:30")),
              ("a", 63, at("10:01:05")), ("c", 80, at("10:05:00"))]  # fmt: skip
    insert(server, f"{db}.beats", before)
    first = closed_windows(before)
    wait_until(lambda: len(server.query(f"SELECT * FROM {db}.`per_minute`")) == len(first), what="windows")

    # Refused while the pump that reads the stream runs, naming it.
    message = error_of(server, f'ALTER STREAM "{schema}"."beats" RESET')
    assert "count-pump" in message and "STOP" in message
    result = run(server, f'ALTER PUMP "{schema}".* STOP;\nALTER STREAM "{schema}"."beats" RESET;')
    assert result[1] == [(f'"{schema}".beats', "reset: its rows set aside, its readers start over")]
    assert server.query(f"SELECT count(*) FROM {db}.beats") == [(0,)]
    location = {r[0]: r[5] for r in run(server, f"SET SCHEMA '\"{schema}\"';\nSHOW STREAMS;")[1]}["beats"]
    aside = [p for p in Path(location.removeprefix("file:")).iterdir() if p.name.startswith("_reset-")]
    assert len(aside) == 1 and any(f.suffix == ".parquet" for f in aside[0].iterdir())

    server.execute(f'ALTER PUMP "{schema}".* START')
    after = [("a", 50, at("09:00:10")), ("a", 51, at("09:00:40")), ("b", 52, at("09:01:30")),
             ("c", 53, at("09:05:00"))]  # fmt: skip
    insert(server, f"{db}.beats", after)
    second = closed_windows(after)
    wait_until(lambda: len(server.query(f"SELECT * FROM {db}.`per_minute`")) == len(first) + len(second),
               what="the windows counted after the reset")  # fmt: skip
    settle(server, "count-pump")
    got = Counter({(bed, t): n for bed, n, t in server.query(f"SELECT bed, n, ROWTIME FROM {db}.`per_minute`")})
    assert got == first + second
    assert pumps(server)["count-pump"][5] == 0  # nothing was late
    assert dict(server.query('DESCRIBE PUMP "count-pump"'))["generation"] == "2"
    # A source stream (s-Server's foreign stream) is left as it is.
    server.execute(f'ALTER PUMP "{schema}".* STOP', 'DROP PUMP "count-pump"')


def test_drop_schema_cascade_drops_its_pumps_and_streams(server: Server) -> None:
    """DROP SCHEMA "s" refuses a schema that holds something; with CASCADE it stops and removes its
    pumps, the pumps that write its streams and those that read them, then drops its streams."""
    schema = "scratch-1.0"
    db = escaped(schema)
    server.execute(
        'CREATE OR REPLACE STREAM "feed" ("v" INTEGER)',
        'CREATE OR REPLACE STREAM "mirror" ("v" INTEGER)',
        f'CREATE OR REPLACE SCHEMA "{schema}"',
        f'CREATE OR REPLACE STREAM "{schema}"."in" ("v" INTEGER)',
        f'CREATE OR REPLACE STREAM "{schema}"."out" ("v" INTEGER)',
        f'CREATE OR REPLACE PUMP "{schema}"."copy" AS INSERT INTO "{schema}"."out" SELECT STREAM "v" FROM "{schema}"."in"',
        f'CREATE OR REPLACE PUMP "feeder" AS INSERT INTO "{schema}"."in" SELECT STREAM "v" FROM "feed"',
        f'CREATE OR REPLACE PUMP "mirror-pump" AS INSERT INTO "mirror" SELECT STREAM "v" FROM "{schema}"."out"',
    )
    insert(server, "feed", [(1, at("11:00:00")), (2, at("11:00:01"))])
    wait_until(lambda: sorted(server.query("SELECT v FROM mirror")) == [(1,), (2,)], what="rows through the schema")
    message = error_of(server, f'DROP SCHEMA "{schema}"')
    assert "not empty" in message and "copy" in message and "CASCADE" in message
    checkpoints = server.state_dir / "checkpoints"
    assert any(p.name.startswith("copy-") for p in checkpoints.iterdir())
    results = run(server, f'SET SCHEMA \'"{schema}"\';\nDROP SCHEMA "{schema}" CASCADE;\nSELECT current_database();')
    assert results[-1] == [("default",)]  # the session's schema was the one dropped
    assert not {"copy", "feeder", "mirror-pump"} & set(pumps(server))
    assert (db,) not in server.query("SHOW DATABASES")
    assert not any(p.name.split("-g")[0] in ("copy", "feeder", "mirror-pump") for p in checkpoints.iterdir())
    assert not any(p.stem in ("copy", "feeder", "mirror-pump") for p in (server.state_dir / "pumps").iterdir())
    assert sorted(server.query("SELECT v FROM mirror")) == [(1,), (2,)]  # other schemas' streams stay
    server.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')  # nothing left: no error


def test_t_sort_orders_rows_arriving_up_to_the_interval_late(server: Server) -> None:
    """ORDER BY ROWTIME WITHIN INTERVAL '2' SECOND: the pump's rows come out in ROWTIME order; a row
    more than two seconds behind the latest one read before it is late and dropped."""
    server.execute(
        'CREATE OR REPLACE STREAM "taps" ("id" INTEGER)',
        'CREATE OR REPLACE STREAM "taps_in_order" ("id" INTEGER)',
        'CREATE OR REPLACE PUMP "tsort" AS INSERT INTO "taps_in_order" '
        'SELECT STREAM ROWTIME, "id" FROM "taps" ORDER BY ROWTIME WITHIN INTERVAL \'2\' SECOND',
    )
    lateness = timedelta(seconds=2)
    sends = [[(1, at("12:00:05")), (2, at("12:00:03"))],
             [(3, at("12:00:04")), (4, at("12:00:09")), (5, at("12:00:06"))],
             [(6, at("12:00:05")), (7, at("12:00:08"))],  # 6 is 4 s behind 12:00:09: late
             [(8, at("12:00:07")), (9, at("12:00:12"))],
             [(10, at("12:01:00"))]]  # fmt: skip
    kept: list[tuple[int, datetime]] = []
    latest: datetime | None = None
    for sent in sends:
        # Each INSERT read by a micro-batch of its own: the pump's batch number moves past the one
        # it had before the INSERT, and it is idle again.
        settle(server, "tsort")
        before = pumps(server)["tsort"][7]
        insert(server, "`taps`", sent)
        wait_until(lambda b=before: (p := server.settled("tsort")) is not None and p[7] is not None
                   and (b is None or p[7] > b), what="the batch that reads the INSERT")  # fmt: skip
        # The watermark this batch reads under: the latest time of the batches before it, less 2 s.
        watermark = latest - lateness if latest else None
        kept += [(i, t) for i, t in sent if watermark is None or t >= watermark]
        latest = max([t for _, t in sent] + ([latest] if latest else []))
    assert latest is not None
    final = latest - lateness
    expected = sorted(((t, i) for i, t in kept if t <= final))
    wait_until(lambda: len(server.query("SELECT * FROM `taps_in_order`")) >= len(expected), what="sorted rows")
    settle(server, "tsort")
    out = server.query(
        "SELECT ROWTIME, id, _metadata.file_name, monotonically_increasing_id() AS pos FROM `taps_in_order`"
    )
    assert sorted((t, i) for t, i, _, _ in out) == expected

    # In the order the pump wrote them (its files by batch number, each file's rows as stored),
    # the rows ascend: the whole output is sorted.
    def batch(name: str) -> int:
        return int(re.search(r"-b(\d+)", name).group(1))  # type: ignore[union-attr]

    written = [(t, i) for t, i, _, _ in sorted(out, key=lambda r: (batch(r[2]), r[3]))]
    assert written == expected
    assert pumps(server)["tsort"][5] == 1  # late_rows: row 6
    server.execute('DROP PUMP "tsort"')


def test_foreign_stream_over_the_file_server(server: Server, tmp_path: Path) -> None:
    """CREATE FOREIGN STREAM ... SERVER "FILE_SERVER": CSV files whose names match the pattern, each
    with a header line and ';' between fields, read by a pump; JSON documents read with ROW_PATH and
    column paths; a Kafka server is refused, naming what to declare instead."""
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "pulse-001.csv").write_text("bed;bpm\nb1;71\nb2;64\n")
    (folder / "notes.txt").write_text("bed;bpm\nzz;0\n")  # its name does not match: never read
    run(
        server,
        f"""
CREATE OR REPLACE SCHEMA "ingest-2";
SET SCHEMA '"ingest-2"';
CREATE OR REPLACE FOREIGN STREAM "ingest-2"."pulse_files" (
    "bed" VARCHAR(8),
    "bpm" INTEGER
)
SERVER "FILE_SERVER"
OPTIONS (
    "DIRECTORY" '{folder}',
    "FILENAME_PATTERN" 'pulse-[0-9]+\\.csv',
    "PARSER" 'CSV',
    "SEPARATOR" ';',
    "SKIP_HEADER" 'true'
)
DESCRIPTION 'files the monitors drop';
CREATE OR REPLACE STREAM "ingest-2"."pulse" ("bed" VARCHAR(8), "bpm" INTEGER);
CREATE OR REPLACE PUMP "ingest-2"."load" STOPPED AS
INSERT INTO "ingest-2"."pulse" ("bed", "bpm")
SELECT STREAM "bed", "bpm" FROM "ingest-2"."pulse_files";
ALTER PUMP "ingest-2"."load" START;
""",
    )
    tmp = folder / ".pulse-002.tmp"
    tmp.write_text("bed;bpm\nb3;99\n")
    tmp.rename(folder / "pulse-002.csv")

    def csv_rows(paths: list[Path]) -> list[tuple]:
        out = []
        for p in paths:
            for line in p.read_text().splitlines()[1:]:
                bed, bpm = line.split(";")
                out.append((bed, int(bpm)))
        return sorted(out)

    expected = csv_rows(sorted(p for p in folder.iterdir() if re.fullmatch(r"pulse-[0-9]+\.csv", p.name)))
    db = escaped("ingest-2")
    wait_until(lambda: sorted(server.query(f"SELECT bed, bpm FROM {db}.pulse")) == expected, what="the CSV rows")
    settle(server, "load")
    assert sorted(server.query(f"SELECT bed, bpm FROM {db}.pulse")) == expected
    # A plain SELECT of the foreign stream is its rows so far (replay), read the same way.
    assert sorted(server.query(f"SELECT bed, bpm FROM {db}.`pulse_files`")) == expected

    docs = tmp_path / "alarms"
    docs.mkdir()
    (docs / "a.json").write_text(
        '{"alarms": [{"where": {"bed": "b1"}, "level": 2}, {"where": {"bed": "b4"}, "level": 5}]}'
    )
    run(
        server,
        f"""
CREATE OR REPLACE FOREIGN STREAM "ingest-2"."alarms" ("bed" VARCHAR(8), "level" INTEGER)
SERVER FILE_SERVER
OPTIONS (DIRECTORY '{docs}', PARSER 'JSON', ROW_PATH '$.alarms[0:]', "bed_PATH" '$.alarms[0:].where.bed');
""",
    )
    assert sorted(server.query(f"SELECT bed, level FROM {db}.alarms")) == [("b1", 2), ("b4", 5)]

    message = error_of(
        server,
        'CREATE OR REPLACE FOREIGN STREAM "clicks" ("page" VARCHAR(64)) SERVER "KAFKA10_SERVER" '
        "OPTIONS (\"TOPIC\" 'clicks', \"SEED_BROKERS\" 'localhost:9092')",
    )
    assert '"KAFKA10_SERVER"' in message and "format = 'kafka'" in message
    server.execute('ALTER PUMP "ingest-2".* STOP', 'DROP PUMP "load"')


def test_listagg_in_a_streaming_aggregate(server: Server) -> None:
    """LISTAGG per bed and minute in a pump (GROUP BY FLOOR(ROWTIME TO MINUTE)): one row per group
    when its minute closes, the values in the order WITHIN GROUP names."""
    server.execute(
        'CREATE OR REPLACE STREAM "notes" ("bed" VARCHAR(8), "note" VARCHAR(16))',
        'CREATE OR REPLACE STREAM "notes_per_minute" ("bed" VARCHAR(8), "notes" VARCHAR(256))',
        'CREATE OR REPLACE PUMP "gather" AS INSERT INTO "notes_per_minute" '
        'SELECT STREAM "bed", LISTAGG("note", \'|\') WITHIN GROUP (ORDER BY "note") '
        'FROM "notes" GROUP BY "bed", FLOOR(ROWTIME TO MINUTE)',
    )
    rows = [("b1", "pain", at("13:00:05")), ("b2", "fever", at("13:00:10")), ("b1", "dizzy", at("13:00:20")),
            ("b1", "nausea", at("13:01:10")), ("b2", "ok", at("13:03:00"))]  # fmt: skip
    insert(server, "notes", rows)
    latest = max(t for _, _, t in rows)
    groups: dict[tuple[str, datetime], list[str]] = {}
    for bed, note, t in rows:
        end = t.replace(second=0) + timedelta(minutes=1)
        if end <= latest:
            groups.setdefault((bed, end), []).append(note)
    expected = sorted((bed, "|".join(sorted(notes)), end) for (bed, end), notes in groups.items())
    wait_until(lambda: len(server.query("SELECT * FROM notes_per_minute")) == len(expected), what="the groups")
    settle(server, "gather")
    assert sorted(server.query("SELECT bed, notes, ROWTIME FROM notes_per_minute")) == expected
    server.execute('DROP PUMP "gather"')


def test_a_stream_name_spark_cannot_keep_is_refused_with_a_name_it_can(server: Server) -> None:
    """A stream's name is a table's name in Spark's catalog, which takes letters, digits and _ only
    (a schema's name may hold any character): the error names the stream and a name that works."""
    message = error_of(server, 'CREATE OR REPLACE STREAM "pulse-in-order" ("bed" VARCHAR(8))')
    assert '"pulse-in-order"' in message and 'name it "pulse_in_order"' in message
    assert ("pulse-in-order",) not in [(r[0],) for r in server.query("SHOW STREAMS")]
