"""overjoin's join operator on Spark's RocksDB state store, as production streams usually run.

The operator keeps its state through Spark's ``StateStore`` interface, so it runs on whichever
provider the session names (``spark.sql.streaming.stateStore.providerClass``); the rest of the
suite uses the default (HDFS-backed, in memory). Here the same generated cases run on
``RocksDBStateStoreProvider``: RANGE windows with a chained outer join, a ROWS window, and a ROWS
join whose result is joined again, each stopped and restarted from its checkpoint mid-stream, and
one killed with ``kill -9`` of its driver, and must return exactly the reference model's rows. Each
test also checks that RocksDB, not the default store, wrote the checkpoint's state files.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.generators import random_case
from tests.spark.restart_child import case_for
from tests.spark.test_restart import (
    CHILD_CONF,
    _assert_exact,
    _cases,
    _expected,
    _sink_rows,
    _streams,
    feed_restarting_once,
    kill_9_then_finish,
)

pytestmark = pytest.mark.streaming

PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

RUNS = [
    ("range", next(s for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3)),
    ("rows", next(s for s in range(6300, 6400) if len(case_for("rows", s)[1]) >= 5)),
    ("rows_chain", next(s for s in range(8300, 8400) if len(case_for("rows_chain", s)[1]) >= 5)),
]


@pytest.fixture
def rocksdb(spark: Any) -> Any:
    """The shared session with the RocksDB state store for the queries a test starts."""
    spark.conf.set(PROVIDER, ROCKSDB)
    try:
        yield spark
    finally:
        spark.conf.unset(PROVIDER)


def _state_files(checkpoint: str) -> set[str]:
    """The kinds of file under the checkpoint's ``state`` folder: RocksDB writes ``.zip``
    snapshots and ``.changelog`` files, the default store ``.delta`` and ``.snapshot`` files."""
    kinds = set()
    for _, _, files in os.walk(os.path.join(checkpoint, "state")):
        kinds |= {f.rsplit(".", 1)[-1] for f in files if "." in f and not f.startswith(".")}
    return kinds


def _assert_rocksdb_wrote_the_state(checkpoint: str) -> None:
    kinds = _state_files(checkpoint)
    assert kinds & {"zip", "changelog"}, f"no RocksDB state files in the checkpoint: {sorted(kinds)}"
    assert "delta" not in kinds, f"the default state store wrote state: {sorted(kinds)}"


@pytest.mark.parametrize(("kind", "seed"), RUNS, ids=lambda v: str(v))
def test_stop_and_restart_on_rocksdb_returns_the_replay_rows(rocksdb, kind, seed):
    spark = rocksdb
    case, batches = case_for(kind, seed)
    views = [f"{v}_db{seed}" for v in case.views]
    folders = [tempfile.mkdtemp(prefix=f"overjoin-rocksdb-{v}-") for v in views]
    out = tempfile.mkdtemp(prefix="overjoin-rocksdb-out-")
    checkpoint = tempfile.mkdtemp(prefix="overjoin-rocksdb-ckpt-")
    _streams(spark, views, folders)
    # The provider is recorded in the checkpoint: the restart reads it from there.
    feed_restarting_once(
        spark, case, views, folders, out, checkpoint, batches, len(batches) // 2, lambda: spark.conf.unset(PROVIDER)
    )
    _assert_rocksdb_wrote_the_state(checkpoint)
    _assert_exact(case, _sink_rows(spark, out), _expected(kind, case, batches))


def test_kill_9_of_the_driver_on_rocksdb_then_restart(rocksdb, tmp_path: Path):
    """A ROWS join whose result is joined again, on RocksDB, its driver killed mid-batch."""
    kind, seed = RUNS[2]
    checkpoint = kill_9_then_finish(rocksdb, tmp_path, kind, seed, "dbk", {**CHILD_CONF, PROVIDER: ROCKSDB})
    _assert_rocksdb_wrote_the_state(checkpoint)
