"""overjoin's checkpoint file manager (``io.overjoin.streaming.LocalCheckpointFileManager``).

Without Hadoop's native library, Hadoop's local file system forks ``chmod`` for every file it
creates and ``readlink`` twice for every rename; overjoin's manager makes the same two calls through
``java.nio`` for ``file:`` checkpoints (docs/operator.md, "Checkpoints on the local file system").
These tests check that nothing else changes:

- the local file system it uses gives Hadoop's own answers: the same permission bits on files and
  directories, and the same status for a file, a symbolic link, a link whose target is gone and a
  missing path;
- a stream's checkpoint written with it has the same files, with the same permission bits, as one
  written with Spark's default manager (``.crc`` checksums included);
- a checkpoint written by Spark's manager is continued by overjoin's and the other way round, with
  exactly the rows the reference model gives;
- other schemes get Spark's own manager.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

import overjoin
from tests.spark.restart_child import case_for
from tests.spark.test_restart import _assert_exact, _expected, _sink_rows, _streams, feed_restarting_once

pytestmark = pytest.mark.streaming

SETTING = overjoin._jar.CHECKPOINT_MANAGER_SETTING
OURS = overjoin._jar.CHECKPOINT_MANAGER_CLASS
_runs = itertools.count()
KIND, SEED = "rows_chain", next(s for s in range(8400, 8500) if len(case_for("rows_chain", s)[1]) >= 5)


def _hadoop_path(spark: Any, path: str) -> Any:
    return spark._jvm.org.apache.hadoop.fs.Path(path)


def _file_systems(spark: Any) -> tuple[Any, Any]:
    """Hadoop's raw local file system and overjoin's, both initialized."""
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    uri = jvm.java.net.URI("file:///")
    hadoop = jvm.org.apache.hadoop.fs.RawLocalFileSystem()
    hadoop.initialize(uri, conf)
    ours = jvm.io.overjoin.streaming.NioRawLocalFileSystem()
    ours.initialize(uri, conf)
    return hadoop, ours


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o755, 0o700, 0o640, 0o000, 0o777, 0o751])
def test_set_permission_gives_hadoops_bits(spark, tmp_path, mode):
    hadoop, ours = _file_systems(spark)
    permission = spark._jvm.org.apache.hadoop.fs.permission.FsPermission(spark._jvm.java.lang.Short(mode))
    for kind in ("file", "dir"):
        a, b = tmp_path / f"{kind}-hadoop", tmp_path / f"{kind}-ours"
        for p in (a, b):
            p.mkdir() if kind == "dir" else p.write_text("x")
            os.chmod(p, 0o123)
        hadoop.setPermission(_hadoop_path(spark, str(a)), permission)
        ours.setPermission(_hadoop_path(spark, str(b)), permission)
        assert _mode(a) == mode, f"Hadoop set {oct(_mode(a))} on a {kind}, not {oct(mode)}"
        assert _mode(b) == _mode(a), f"{kind} {oct(mode)}: overjoin {oct(_mode(b))}, Hadoop {oct(_mode(a))}"
        os.chmod(a, 0o700)
        os.chmod(b, 0o700)


def test_file_link_status_is_hadoops(spark, tmp_path):
    hadoop, ours = _file_systems(spark)
    (tmp_path / "file").write_text("twelve bytes")
    (tmp_path / "dir").mkdir()
    os.symlink(tmp_path / "file", tmp_path / "link")
    os.symlink(tmp_path / "gone", tmp_path / "dangling")

    def status(fs: Any, name: str) -> tuple[Any, ...]:
        s = fs.getFileLinkStatus(_hadoop_path(spark, str(tmp_path / name)))
        target = str(s.getSymlink()) if s.isSymlink() else None
        return (s.isFile(), s.isDirectory(), s.isSymlink(), target, s.getLen(), str(s.getPath()))

    for name in ("file", "dir", "link", "dangling"):
        assert status(ours, name) == status(hadoop, name), name
    assert status(ours, "file")[:5] == (True, False, False, None, 12)
    assert status(ours, "link")[2] is True
    for fs in (hadoop, ours):
        with pytest.raises(Exception, match="FileNotFoundException"):
            fs.getFileLinkStatus(_hadoop_path(spark, str(tmp_path / "missing")))


def _manager_class(spark: Any, path: str) -> str:
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    manager = jvm.org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager.create(
        _hadoop_path(spark, path), conf
    )
    return str(manager.getClass().getName())


def test_local_paths_get_overjoins_manager_and_others_sparks(spark, tmp_path):
    assert spark.conf.get(SETTING) == OURS
    assert _manager_class(spark, str(tmp_path)) == OURS
    assert _manager_class(spark, f"file://{tmp_path}") == OURS
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    ours = jvm.io.overjoin.streaming.LocalCheckpointFileManager(_hadoop_path(spark, str(tmp_path)), conf)
    assert ours.isLocal()
    is_local = jvm.io.overjoin.streaming.LocalCheckpointFileManager.isLocalPath
    assert is_local(_hadoop_path(spark, "/tmp/x"), conf)
    assert not is_local(_hadoop_path(spark, "hdfs://namenode:8020/x"), conf)
    assert not is_local(_hadoop_path(spark, "s3a://bucket/x"), conf)


def _run(spark: Any, manager: str | None, stop_at: int | None, manager_after: str | None = None) -> tuple[str, Any]:
    """Runs the case with ``manager`` (None: Spark's own), switching to ``manager_after`` at a
    restart after batch ``stop_at``; returns the checkpoint and the sink's rows."""
    case, batches = case_for(KIND, SEED)
    tag = f"cm{next(_runs)}"
    views = [f"{v}_{tag}" for v in case.views]
    folders = [tempfile.mkdtemp(prefix=f"overjoin-cm-{v}-") for v in views]
    out = tempfile.mkdtemp(prefix="overjoin-cm-out-")
    checkpoint = tempfile.mkdtemp(prefix="overjoin-cm-ckpt-")
    _streams(spark, views, folders)

    def use(m: str | None) -> None:
        spark.conf.set(SETTING, m) if m else spark.conf.unset(SETTING)

    use(manager)
    try:
        feed_restarting_once(spark, case, views, folders, out, checkpoint, batches, stop_at, lambda: use(manager_after))
    finally:
        spark.conf.set(SETTING, OURS)
    sunk = _sink_rows(spark, out)
    _assert_exact(case, sunk, _expected(KIND, case, batches))
    return checkpoint, sunk


def _files(checkpoint: str) -> dict[str, int]:
    """Every file and folder of a checkpoint but the state snapshots (written by a background
    thread when it gets to them), with its permission bits."""
    out = {}
    for root, dirs, files in os.walk(checkpoint):
        for name in dirs + files:
            if ".snapshot" in name:
                continue
            p = Path(root) / name
            out[str(p.relative_to(checkpoint))] = _mode(p)
    return out


def _kinds(files: dict[str, int]) -> set[tuple[str, int]]:
    """The checkpoint's files with each batch or version number replaced by ``N``: how many
    micro-batches a run makes depends on timing (a batch with no data, run when the watermark moves,
    comes or not), so two runs are compared by the kinds of file they write and their bits."""
    return {(re.sub(r"\d+", "N", name), mode) for name, mode in files.items()}


def test_a_checkpoint_has_the_same_files_and_permissions_either_way_and_ours_forks_nothing(spark):
    """The same case run once with each manager, under a JFR recording of the driver's process
    starts: the two checkpoints have the same kinds of file with the same permission bits; with
    Spark's manager Hadoop forks chmod and readlink for the checkpoint's files (several per
    micro-batch), with overjoin's none (the reason for the manager)."""
    batches = case_for(KIND, SEED)[1]
    sparks, spark_forks = _recorded_run(spark, None)
    ours, our_forks = _recorded_run(spark, OURS)
    assert spark_forks >= 3 * len(batches), f"Spark's manager forked {spark_forks} processes for {len(batches)} batches"
    assert our_forks == 0, f"overjoin's manager forked {our_forks} processes on checkpoint files"
    a, b = _files(sparks), _files(ours)
    assert any(name.endswith(".crc") for name in b), sorted(b)
    assert any(name.endswith(".delta") for name in b), sorted(b)
    assert _kinds(b) == _kinds(a), (
        f"only Spark's: {sorted(_kinds(a) - _kinds(b))}, only overjoin's: {sorted(_kinds(b) - _kinds(a))}"
    )
    # Every file the two have in common (most batches) has the same bits.
    common = set(a) & set(b)
    assert len(common) >= len(a) // 2, (sorted(a), sorted(b))
    assert {n: b[n] for n in common} == {n: a[n] for n in common}
    # Every data file has its checksum, under either manager.
    for files in (a, b):
        for name in files:
            folder, _, base = name.rpartition("/")
            if not base.startswith(".") and not os.path.isdir(Path(sparks if files is a else ours) / name):
                assert f"{folder}/.{base}.crc".lstrip("/") in files, name


@pytest.mark.parametrize(
    ("first", "then"), [(None, OURS), (OURS, None)], ids=["spark-then-overjoin", "overjoin-then-spark"]
)
def test_a_checkpoint_written_by_one_manager_is_continued_by_the_other(spark, first, then):
    batches = case_for(KIND, SEED)[1]
    _run(spark, first, len(batches) // 2, then)  # asserts the model's rows


def _process_starts(spark: Any, action: Any) -> list[str]:
    """Runs ``action()`` under a JFR recording of the driver's process starts; the commands started."""
    jvm = spark._jvm
    recording = jvm.jdk.jfr.Recording()
    recording.enable("jdk.ProcessStart")
    recording.start()
    try:
        action()
    finally:
        recording.stop()
    dump = tempfile.mkdtemp(prefix="overjoin-cm-jfr-") + "/forks.jfr"
    recording.dump(jvm.java.io.File(dump).toPath())
    recording.close()
    events = jvm.jdk.jfr.consumer.RecordingFile.readAllEvents(jvm.java.io.File(dump).toPath())
    return [str(e.getString("command")) for e in events if e.getEventType().getName() == "jdk.ProcessStart"]


def _recorded_run(spark: Any, manager: str | None) -> tuple[str, int]:
    """Runs the case with ``manager`` under a JFR recording of the driver's process starts; returns
    its checkpoint and how many processes were started on the checkpoint's files."""
    checkpoints: list[str] = []
    commands = _process_starts(spark, lambda: checkpoints.append(_run(spark, manager, None)[0]))
    return checkpoints[0], sum(1 for c in commands if checkpoints[0] in c)


# -- sink files: overjoin server's fs.file.impl --------------------------------------------------


def _write_parquet(spark: Any, impl: str | None) -> tuple[Path, list[str]]:
    """A small Parquet dataset written with ``impl`` as the local file system (Hadoop's without),
    under a JFR recording of process starts: its folder and the commands started on its files."""
    out = Path(tempfile.mkdtemp(prefix="overjoin-fs-")) / "data"
    if impl:
        spark.conf.set("fs.file.impl", impl)
    spark.conf.set("fs.file.impl.disable.cache", "true")  # a file system made for this write
    try:
        commands = _process_starts(
            spark,
            lambda: spark.range(0, 1000, 1, 4).selectExpr("id", "id % 7 AS k").write.partitionBy("k").parquet(str(out)),
        )
    finally:
        spark.conf.unset("fs.file.impl")
        spark.conf.unset("fs.file.impl.disable.cache")
    return out, [c for c in commands if str(out) in c]


def _shape(folder: Path) -> list[tuple[str, int]]:
    """Each file and folder under ``folder`` with its permission bits, the write's UUIDs masked."""
    out = []
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            masked = re.sub(
                r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", str(p.relative_to(folder))
            )
            out.append((masked, _mode(p)))
    return sorted(out)


def test_sink_files_are_hadoops_without_a_process_per_file(spark):
    """overjoin server's ``fs.file.impl`` (io.overjoin.streaming.NioLocalFileSystem) writes the same
    files, checksums and permission bits as Hadoop's LocalFileSystem, and starts no chmod for them;
    the rows read back are the same."""
    hadoops, hadoop_forks = _write_parquet(spark, None)
    ours, our_forks = _write_parquet(spark, overjoin._jar.LOCAL_FILE_SYSTEM_CLASS)
    assert len(hadoop_forks) >= 7, f"Hadoop's file system started {len(hadoop_forks)} processes"
    assert our_forks == [], our_forks
    assert any(name.endswith(".crc") for name, _ in _shape(ours))
    assert _shape(ours) == _shape(hadoops)
    read = lambda p: sorted(tuple(r) for r in spark.read.parquet(str(p)).collect())  # noqa: E731
    assert read(ours) == read(hadoops) and len(read(ours)) == 1000
