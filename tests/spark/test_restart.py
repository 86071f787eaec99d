"""Stream joins survive a restart from their checkpoint with no row lost or duplicated.

A streaming query that stops (or whose driver dies) and restarts from its checkpoint must
produce, in an exactly-once sink, exactly the rows of one uninterrupted run: the reference model's
answer (docs/semantics.md §1, §8). Generated cases run into a Parquet sink, whose
``_spark_metadata`` log makes it exactly-once: RANGE windows (2-3 inputs, every join type, chained
outer joins among them), ROWS windows (without the padded rows of windows that never close, which
a stream never emits), and ordered output (``spark.overjoin.emit = ordered``);

* ``test_stop_and_restart...`` stops the query between micro-batches or right after writing a
  batch's files (mid-batch), then starts it again from the same checkpoint and sink;
* ``test_kill_9...`` runs the first part in a child process (its own driver) and kills that JVM
  with SIGKILL while a micro-batch is in progress, then finishes the stream here.

Run more seeds with ``OVERJOIN_RESTART_SEEDS``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.generators import SCHEMA, Case, describe, random_case
from tests.reference_model import multiset
from tests.spark.restart_child import case_for, write_batch

pytestmark = pytest.mark.streaming

REPO = Path(__file__).resolve().parents[2]
COUNT = int(os.environ.get("OVERJOIN_RESTART_SEEDS", "6"))


def _cases(count: int, *, chained_outer: bool) -> list[int]:
    """Seeds of generated cases with at least two micro-batches; with ``chained_outer``, three
    inputs whose first join is an outer join (its padded rows feed the second join)."""
    seeds = []
    seed = 5000
    while len(seeds) < count:
        case = random_case(seed)
        fits = len(case.batches()) >= 2 and (
            not chained_outer or (len(case.views) == 3 and case.kinds[0] in ("LEFT", "RIGHT", "FULL")))
        if fits:
            seeds.append(seed)
        seed += 1
    return seeds


SEEDS = _cases((COUNT + 1) // 2, chained_outer=True) + _cases(COUNT // 2, chained_outer=False)
# (kind, seed): RANGE windows (chained outer joins among them), ROWS windows, ordered output.
RUNS = ([("range", s) for s in SEEDS] + [("rows", s) for s in range(6100, 6100 + max(1, COUNT // 2))]
        + [("ordered", s) for s in SEEDS[: max(1, COUNT // 3)]])


def _expected(kind: str, case: Case, batches: list[dict[str, list[dict[str, Any]]]]) -> list[tuple[Any, ...]]:
    if kind == "rows":
        from tests.spark.test_rows_streams import stream_expected

        return stream_expected(case, [[r for b in batches for r in b.get(v, [])] for v in case.views])
    return case.without_flush(case.expected())


def _sink_rows(spark: Any, out: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.read.parquet(out).collect()]


def _start(spark: Any, case: Case, views: list[str], out: str, checkpoint: str) -> Any:
    return (spark.sql(case.sql_reading(views)).writeStream.format("parquet")
            .option("path", out).option("checkpointLocation", checkpoint).outputMode("append").start())


def _streams(spark: Any, views: list[str], folders: list[str]) -> None:
    for view, folder in zip(views, folders):
        spark.readStream.schema(SCHEMA).json(folder).createOrReplaceTempView(view)


def _log_size(folder: str) -> int:
    path = Path(folder)
    return len([p for p in path.iterdir() if p.name.isdigit()]) if path.exists() else 0


def _wait_for_a_batch_in_progress(checkpoint: str, timeout: float = 5.0) -> None:
    """Until a micro-batch is planned (in the offset log) but not committed, so that the kill
    lands mid-batch; after ``timeout`` the kill goes ahead anyway (between batches)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _log_size(os.path.join(checkpoint, "offsets")) > _log_size(os.path.join(checkpoint, "commits")):
            return
        time.sleep(0.005)


def _assert_exact(case: Case, rows: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> None:
    actual = case.without_flush(rows)
    assert multiset(actual) == multiset(expected), describe(case, actual)


@pytest.mark.parametrize("kind,seed", RUNS, ids=lambda v: str(v))
def test_stop_and_restart_from_the_checkpoint_returns_the_replay_rows(spark, kind, seed):
    case, batches = case_for(kind, seed)
    views = [f"{v}_r{seed}" for v in case.views]
    folders = [tempfile.mkdtemp(prefix=f"overjoin-restart-{v}-") for v in views]
    out = tempfile.mkdtemp(prefix="overjoin-restart-out-")
    checkpoint = tempfile.mkdtemp(prefix="overjoin-restart-ckpt-")
    _streams(spark, views, folders)
    # Stop after a processed batch on even seeds; on odd ones right after writing the files, so
    # the stop may interrupt a micro-batch in progress.
    mid_batch = seed % 2 == 1
    stop_at = {len(batches) // 2, len(batches) - 2}
    if kind == "ordered":
        spark.conf.set("spark.overjoin.emit", "ordered")
    query = _start(spark, case, views, out, checkpoint)
    restarts = 0
    try:
        for i, batch in enumerate(batches):
            for view, rows in batch.items():
                write_batch(folders[case.views.index(view)], i, rows)
            if i in stop_at and mid_batch:
                query.stop()
                query = _start(spark, case, views, out, checkpoint)
                restarts += 1
            query.processAllAvailable()
            if i in stop_at and not mid_batch:
                query.stop()
                query = _start(spark, case, views, out, checkpoint)
                restarts += 1
        query.processAllAvailable()
    finally:
        query.stop()
        spark.conf.unset("spark.overjoin.emit")
    assert restarts >= 1
    _assert_exact(case, _sink_rows(spark, out), _expected(kind, case, batches))


KILL_RUNS = ([("range", s) for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3][:2]
             + [("rows", next(s for s in range(6200, 6300) if len(case_for("rows", s)[1]) >= 5))]
             + [("ordered", next(s for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3))])


def test_kill_9_of_the_driver_then_restart_returns_the_replay_rows(spark, tmp_path):
    """The driver JVM of the first run dies by SIGKILL while a micro-batch is in progress."""
    for kind, seed in KILL_RUNS:
        case, batches = case_for(kind, seed)
        kill_after = len(batches) // 2
        work = tmp_path / f"{kind}{seed}"
        views = [f"{v}_k{seed}" for v in case.views]
        folders = [str(work / v) for v in views]
        for f in folders:
            os.makedirs(f)
        out, checkpoint = str(work / "out"), str(work / "checkpoint")
        spec = {"kind": kind, "seed": seed, "views": views, "folders": folders, "out": out, "checkpoint": checkpoint,
                "schema": SCHEMA, "conf": {
                    "spark.master": "local[2]", "spark.sql.shuffle.partitions": "2",
                    "spark.ui.enabled": "false", "spark.sql.session.timeZone": "UTC",
                    "spark.sql.adaptive.enabled": "false", "spark.driver.memory": "1g"}}
        spec_path = work / "spec.json"
        spec_path.write_text(json.dumps(spec))
        child = subprocess.Popen([sys.executable, "-m", "tests.spark.restart_child", str(spec_path)],
                                 cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        jvm_pid = None
        killed = False
        try:
            assert child.stdout is not None
            for line in child.stdout:
                if line.startswith("JVMPID "):
                    jvm_pid = int(line.split()[1])
                elif line.strip() == f"WROTE {kill_after}":
                    assert jvm_pid is not None
                    _wait_for_a_batch_in_progress(checkpoint)
                    os.kill(jvm_pid, signal.SIGKILL)
                    killed = True
                    break
        finally:
            child.kill()
            child.wait(timeout=60)
        assert killed, f"the child never reached batch {kill_after}"
        committed = len(os.listdir(os.path.join(checkpoint, "commits")))
        assert committed >= 1, "the killed run committed no batch: nothing was restarted"

        _streams(spark, views, folders)
        if kind == "ordered":
            spark.conf.set("spark.overjoin.emit", "ordered")
        query = _start(spark, case, views, out, checkpoint)
        try:
            query.processAllAvailable()
            for i in range(kill_after + 1, len(batches)):
                for view, rows in batches[i].items():
                    write_batch(folders[case.views.index(view)], i, rows)
                query.processAllAvailable()
        finally:
            query.stop()
            spark.conf.unset("spark.overjoin.emit")
        _assert_exact(case, _sink_rows(spark, out), _expected(kind, case, batches))


@pytest.mark.parametrize("op", ["<=", ">="])
def test_asof_join_of_two_streams_restarts_from_its_checkpoint(spark, tmp_path, op):
    """An ASOF LEFT join of two streams (its waiting rows are state), stopped in the middle of a
    micro-batch and restarted, returns replay's rows (looking forward: the matched ones; an x with
    no later y never gets its NULL row on a stream, docs/semantics.md §6)."""
    import datetime as dt
    import random

    rng = random.Random(11 if op == "<=" else 12)
    base = dt.datetime(2024, 1, 1, 9, 0)
    keys = ["A", "B", "C", None]
    xs = sorted(({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 80)), "v": i}
                 for i in range(30)), key=lambda r: r["ts"])
    ys = sorted(({"k": k, "ts": base + dt.timedelta(seconds=s), "w": 100 + n}
                 for n, (k, s) in enumerate(sorted({(rng.choice(keys), rng.randint(0, 80)) for _ in range(25)},
                                                   key=str))), key=lambda r: r["ts"])
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF LEFT JOIN {y} y ON x.k = y.k AND y.ts " + op + " x.ts"
    tag = "b" if op == "<=" else "f"
    spark.createDataFrame([(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int") \
        .createOrReplaceTempView(f"rax_t{tag}")
    spark.createDataFrame([(r["k"], r["ts"], r["w"]) for r in ys], "k string, ts timestamp, w int") \
        .createOrReplaceTempView(f"ray_t{tag}")
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x=f"rax_t{tag}", y=f"ray_t{tag}")).collect())
    if op == ">=":
        replay = [r for r in replay if r[2] is not None or any(x["v"] == r[1] and x["k"] is None for x in xs)]

    folders = {name: tmp_path / name for name in ("x", "y")}
    for name, folder in folders.items():
        folder.mkdir()
    spark.readStream.schema("k string, ts timestamp, v int").json(str(folders["x"])).createOrReplaceTempView(f"rax_s{tag}")
    spark.readStream.schema("k string, ts timestamp, w int").json(str(folders["y"])).createOrReplaceTempView(f"ray_s{tag}")
    batches = []
    for lo, hi in ((-1, 20), (20, 40), (40, 60), (60, 81)):
        batches.append({"x": [r for r in xs if lo < (r["ts"] - base).seconds <= hi],
                        "y": [r for r in ys if lo < (r["ts"] - base).seconds <= hi]})
    for hours in (5, 6):
        far = base + dt.timedelta(hours=hours)
        batches.append({"x": [{"k": "Z", "ts": far, "v": -1}], "y": [{"k": "Z", "ts": far, "w": -1}]})
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")

    def start() -> Any:
        return (spark.sql(sql.format(x=f"rax_s{tag}", y=f"ray_s{tag}")).writeStream.format("parquet")
                .option("path", out).option("checkpointLocation", checkpoint).outputMode("append").start())

    query = start()
    try:
        for i, batch in enumerate(batches):
            for name, rows in batch.items():
                write_batch(str(folders[name]), i, rows)
            if i == 2:
                query.stop()  # maybe in the middle of the batch just written
                query = start()
            query.processAllAvailable()
    finally:
        query.stop()
    stream = sorted(tuple(r) for r in spark.read.parquet(out).collect() if r.v != -1)
    assert stream == replay
