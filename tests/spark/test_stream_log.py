"""A durable stream's log of its files (``io.overjoin.streams.StreamLog``) and its reader.

The server's pumps read a durable stream from its log (``StreamLogSource``) instead of listing the
stream's folder at every trigger (docs/operator.md, "A durable stream's log"). These tests check the
log against the folder it describes (every file in it, once, in the order they became visible), a
crash between an entry and its file, and the reader against the stream read as a table (the
oracle): generated inserts between micro-batches and a restart from the checkpoint lose and repeat
nothing. The pumps' kill -9 and restart tests (tests/server) run the same reader in the server.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from tests.seeds import count
from tests.spark.streams import setting

pytestmark = pytest.mark.streaming

READ_LOGS = "spark.overjoin.streamLogs.read"


def _log(spark: Any, folder: Path) -> Any:
    conf = spark._jsc.hadoopConfiguration()
    return spark._jvm.io.overjoin.streams.StreamLog.apply(str(folder), conf)


def _reopen(spark: Any, folder: Path) -> None:
    """As a restart: the next use reads the log from its files."""
    spark._jvm.io.overjoin.streams.StreamLog.reopenAt(str(folder), spark._jsc.hadoopConfiguration())


def _names(log: Any, start: int, end: int) -> list[str]:
    joined = str(log.files(start, end).mkString("\n"))
    return joined.split("\n") if joined else []


def _publish(spark: Any, log: Any, staged: Path, target: Path) -> int:
    hadoop = spark._jvm.org.apache.hadoop.fs.Path
    return int(log.publish(hadoop(str(staged)), hadoop(str(target)), getattr(log, "publish$default$3")()))


def test_a_log_begins_with_the_files_already_there(spark, tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    names = [f"part-{i}.parquet" for i in range(5)]
    # Modification times out of name order: the log is the order they became visible.
    for i, n in enumerate(names):
        (folder / n).write_text("x")
        t = 1_700_000_000 + (4 - i) * 10
        os.utime(folder / n, (t, t))
    (folder / "_staging").mkdir()
    (folder / "_staging" / "pump-a.parquet").write_text("x")
    (folder / ".hidden").write_text("x")
    (folder / "_SUCCESS").write_text("")
    log = _log(spark, folder)
    assert log.visible() == 5
    assert _names(log, 0, 5) == list(reversed(names))
    assert _names(log, 2, 4) == [names[2], names[1]]
    first_id = str(log.id())
    _reopen(spark, folder)
    again = _log(spark, folder)
    assert again.visible() == 5 and str(again.id()) == first_id
    assert _names(again, 0, 5) == list(reversed(names))


def test_a_published_file_is_logged_and_a_crash_before_its_rename_takes_the_entry_out(spark, tmp_path):
    folder = tmp_path / "s"
    (folder / "_staging").mkdir(parents=True)
    log = _log(spark, folder)
    assert log.visible() == 0
    for b in range(3):
        staged = folder / "_staging" / f"b{b}"
        staged.write_text(f"rows {b}")
        assert _publish(spark, log, staged, folder / f"pump-p-g0-b{b:012d}.parquet") == b + 1
        assert not staged.exists()
    assert _names(log, 0, 3) == [f"pump-p-g0-b{b:012d}.parquet" for b in range(3)]
    # What a server killed between entry 4 and its rename leaves: the entry, and no file.
    entry = folder / "_log" / "000000" / f"{4:012d}"
    entry.write_text("pump-p-g0-b000000000003.parquet")
    _reopen(spark, folder)
    reopened = _log(spark, folder)
    assert reopened.visible() == 3
    assert not entry.exists(), "the entry without its file should be taken out when the log opens"
    # The pump's replayed batch writes its file and its entry again, under the same number.
    staged = folder / "_staging" / "b3"
    staged.write_text("rows 3")
    assert _publish(spark, reopened, staged, folder / "pump-p-g0-b000000000003.parquet") == 4
    assert _names(reopened, 3, 4) == ["pump-p-g0-b000000000003.parquet"]


def test_entries_past_a_thousand_go_in_their_own_folder(spark, tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    for i in range(1003):
        (folder / f"part-{i:05d}").write_text("")
    log = _log(spark, folder)
    assert log.visible() == 1003
    assert sorted(p.name for p in (folder / "_log").iterdir()) == ["000000", "000001", "id"]
    _reopen(spark, folder)
    assert _log(spark, folder).visible() == 1003  # the last entry found again from the folders


def test_a_folder_emptied_and_made_again_has_a_new_log(spark, tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "part-0").write_text("x")
    log = _log(spark, folder)
    old = str(log.id())
    for p in sorted(folder.rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    assert log.visible() == 0 and str(log.id()) != old


def _stream(spark: Any, name: str) -> str:
    spark.sql(f"CREATE OR REPLACE STREAM {name} (k STRING, v INT)")
    return name


def _insert(spark: Any, name: str, values: list[tuple[str, int]]) -> None:
    rows = ", ".join(f"('{k}', {v})" for k, v in values)
    spark.sql(f"INSERT INTO {name} (k, v) VALUES {rows}")


def _start(spark: Any, name: str, out: Path, checkpoint: Path) -> Any:
    """The stream's rows into Parquet files under ``out`` (Spark's file sink: exactly once across restarts)."""
    df = spark.sql(f"SELECT STREAM k, v FROM {name}")
    return (
        df.writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="100 milliseconds")
        .start()
    )


def _written(spark: Any, out: Path) -> list[tuple[str, int]]:
    return sorted((r[0], r[1]) for r in spark.read.parquet(str(out)).collect())


def _rows(spark: Any, sql: str) -> list[tuple[str, int]]:
    return sorted((r[0], r[1]) for r in spark.sql(sql).collect())


@pytest.mark.parametrize("seed", [3 + 8 * i for i in range(count("OVERJOIN_STREAM_LOG_SEEDS", 1))])
def test_the_reader_returns_every_inserted_row_once_across_a_restart(spark, tmp_path, seed):
    """Generated inserts (``OVERJOIN_STREAM_LOG_SEEDS`` seeds, default 1) before, between and during
    micro-batches and while the reader is stopped: over its two runs, the rows of the stream's table."""
    rng = random.Random(seed)
    name = _stream(spark, f"logged_{seed}")
    out, checkpoint = tmp_path / "out", tmp_path / "ck"
    v = iter(range(10_000))
    with setting(spark, READ_LOGS, "true"):
        _insert(spark, name, [("a", next(v)) for _ in range(rng.randint(1, 5))])  # before the reader starts
        q = _start(spark, name, out, checkpoint)
        for _ in range(rng.randint(3, 6)):
            _insert(spark, name, [(rng.choice("abc"), next(v)) for _ in range(rng.randint(1, 7))])
            if rng.random() < 0.5:
                q.processAllAvailable()
        q.processAllAvailable()
        description = q.lastProgress["sources"][0]["description"]
        q.stop()
        first = _written(spark, out)
        # Rows inserted while the reader is stopped, then a restart from its checkpoint.
        for _ in range(rng.randint(1, 3)):
            _insert(spark, name, [(rng.choice("abc"), next(v)) for _ in range(rng.randint(1, 4))])
        q = _start(spark, name, out, checkpoint)
        _insert(spark, name, [("z", next(v))])
        q.processAllAvailable()
        q.stop()
    table = _rows(spark, f"SELECT k, v FROM {name}")
    assert description.startswith("overjoin stream log[")
    assert len(first) < len(table)
    assert _written(spark, out) == table, "each inserted row once, over the two runs"


def test_a_checkpoint_begun_by_sparks_file_source_keeps_it(spark, tmp_path):
    name = _stream(spark, "logged_upgrade")
    out, checkpoint = tmp_path / "out", tmp_path / "ck"
    _insert(spark, name, [("a", 1), ("b", 2)])
    q = _start(spark, name, out, checkpoint)  # Spark's file source: the setting is off
    q.processAllAvailable()
    assert q.lastProgress["sources"][0]["description"].startswith("FileStreamSource[")
    q.stop()
    _insert(spark, name, [("c", 3)])
    with setting(spark, READ_LOGS, "true"):
        q = _start(spark, name, out, checkpoint)
        _insert(spark, name, [("d", 4)])
        q.processAllAvailable()
        assert q.lastProgress["sources"][0]["description"].startswith("FileStreamSource[")
        q.stop()
    assert _written(spark, out) == [
        ("a", 1),
        ("b", 2),
        ("c", 3),
        ("d", 4),
    ]


def test_insert_overwrite_starts_the_log_again(spark, tmp_path):
    name = _stream(spark, "logged_overwrite")
    _insert(spark, name, [("a", 1)])
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").filter("col_name = 'Location'").collect()[0][1]
    folder = Path(location.removeprefix("file:"))
    log = _log(spark, folder)
    old = str(log.id())
    assert log.visible() == 1
    spark.sql(f"INSERT OVERWRITE {name} (k, v) VALUES ('b', 2), ('c', 3)")
    # The one log of the folder, which a reader or a pump would hold, is the new one.
    assert str(log.id()) != old and _log(spark, folder) is not None
    files = _names(log, 0, log.visible())
    assert sorted(files) == sorted(p.name for p in folder.iterdir() if not p.name.startswith(("_", ".")))
