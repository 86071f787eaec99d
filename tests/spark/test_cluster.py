"""Stream joins on a Spark standalone cluster, surviving the loss of a worker.

The test starts a standalone master and two workers (one core, 1 GiB each) on 127.0.0.1 from the
classes in pyspark's wheel (``bin/spark-class``), and one driver in a child process
(tests/spark/restart_child.py) that ships overjoin's jar to the executors and runs generated
stream joins (overjoin's own operators) into Parquet sinks, one after the other. Right after a
micro-batch's files are written, one worker and its executor are killed with SIGKILL; the stream
goes on on the other worker (its tasks rerun, the join's state reloaded from the checkpoint) and
must produce exactly the replay rows. Every process is stopped by PID at the end.

The streams share one driver (one application, one set of executors): a driver and its executors
cost tens of seconds of CPU to start, which four applications paid four times.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.generators import describe, random_case
from tests.jvm import SHORT_LIVED_JVM_OPTIONS, short_lived_env
from tests.ports import free_port
from tests.reference_model import multiset
from tests.spark.restart_child import case_for
from tests.spark.test_restart import REPO, _cases, _expected, _wait_for_a_batch_in_progress, child_spec

pytestmark = pytest.mark.streaming


def _spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).resolve().parent / "bin" / "spark-class")


class Cluster:
    """A standalone master and ``workers`` workers on loopback, each in its own process group."""

    def __init__(self, work: Path, workers: int = 2) -> None:
        self.work = work
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = short_lived_env(
            dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_HOME=str(Path(_spark_class()).parents[1]))
        )
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.master_log = work / "master.log"
        self._start(
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--webui-port",
                str(free_port()),
            ],
            self.master_log,
        )
        self._wait_for(self.master_log, "I have been elected leader", 1)
        self.workers = 0
        for _ in range(workers):  # started together, then waited for
            self.add_worker(wait=False)
        self._wait_for(self.master_log, "Registering worker", self.workers)

    def add_worker(self, wait: bool = True) -> str:
        """Starts one more worker (one core, 1 GiB) and waits until the master has registered it."""
        name = f"worker{self.workers}"
        self._start(
            name,
            [
                "org.apache.spark.deploy.worker.Worker",
                self.url,
                "--host",
                "127.0.0.1",
                "--cores",
                "1",
                "--memory",
                "1g",
                "--webui-port",
                str(free_port()),
                "--work-dir",
                str(self.work / name),
            ],
            self.work / f"{name}.log",
        )
        self.workers += 1
        if wait:
            self._wait_for(self.master_log, "Registering worker", self.workers)
        return name

    def _start(self, name: str, args: list[str], log: Path) -> None:
        with open(log, "wb") as out:
            self.procs[name] = subprocess.Popen(
                [_spark_class(), *args], stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
            )

    def _wait_for(self, log: Path, text: str, count: int, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if log.exists() and log.read_text(errors="replace").count(text) >= count:
                return
            time.sleep(0.1)
        raise AssertionError(
            f"standalone cluster did not start: no {count} x {text!r} in {log}:\n"
            + (log.read_text(errors="replace")[-3000:] if log.exists() else "")
        )

    def wait_for_master(self, text: str, count: int) -> None:
        self._wait_for(self.master_log, text, count)

    def kill(self, name: str) -> None:
        """SIGKILL to the process group: the worker and the executor it launched."""
        proc = self.procs[name]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)


def test_stream_joins_on_a_standalone_cluster_survive_losing_a_worker(spark, tmp_path):
    """In one application: a ROWS-window join (worker0 killed mid-stream, worker2 started in its
    place), then a chained outer RANGE join and a ROWS join whose result is joined again (its
    executors record the held-back watermark's bounds in the checkpoint) on the workers left, then
    a sliding window with worker1, the older one, killed mid-stream, then RANDOM_CUT_FOREST."""
    cluster = Cluster(tmp_path)
    try:
        rows_seed = next(s for s in range(6200, 6300) if len(case_for("rows", s)[1]) >= 5)
        range_seed = next(s for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3)
        chain_seed = next(s for s in range(8200, 8300) if len(case_for("rows_chain", s)[1]) >= 5)
        generated = [("rows", rows_seed), ("range", range_seed), ("rows_chain", chain_seed)]
        specs = [_generated_spec(cluster, tmp_path / f"{kind}{seed}", kind, seed) for kind, seed in generated]
        sliding, expected_sliding = _sliding_spec(cluster, tmp_path / "sliding")
        forest, expected_forest = _random_cut_forest_spec(spark, tmp_path / "forest")
        runs = [*specs, sliding, forest]
        # Run k: (batch after whose files a worker is killed, that worker).
        kills = {0: (len(case_for("rows", rows_seed)[1]) // 2, "worker0"), 3: (len(sliding["batches"]) // 2, "worker1")}
        _drive(cluster, tmp_path, {"runs": runs, "conf": _cluster_conf(cluster)}, kills)
    finally:
        cluster.stop()
    for (kind, seed), spec in zip(generated, specs):
        case, batches = case_for(kind, seed)
        actual = case.without_flush([tuple(r) for r in spark.read.parquet(spec["out"]).collect()])
        assert multiset(actual) == multiset(_expected(kind, case, batches)), describe(case, actual)
    actual_sliding = sorted(tuple(r) for r in spark.read.parquet(sliding["out"]).collect() if r[1] != -1)
    assert actual_sliding == expected_sliding
    actual_forest = sorted(tuple(r) for r in spark.read.parquet(forest["out"]).collect() if r[0] != "-1")
    assert actual_forest == expected_forest


def _random_cut_forest_spec(spark: Any, work: Path) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """RANDOM_CUT_FOREST (docs/semantics.md §14) on the cluster's executors: the scores the same
    query gives over the rows as a table in this session, to the bit."""
    import datetime as dt
    import random

    from tests.spark.test_restart import _jsonable_batches

    rng = random.Random(91)
    t0 = dt.datetime(2024, 1, 1, 9, 0)
    rows = [
        {"ROWTIME": t0 + dt.timedelta(milliseconds=250 * i), "id": i, "hr": rng.randint(60, 100)} for i in range(200)
    ]
    rows[150]["hr"] = 190
    schema = "ROWTIME timestamp, id int, hr int"
    sql = (
        "SELECT STREAM id, ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST(CURSOR("
        "SELECT STREAM ROWTIME, hr, CAST(id AS STRING) AS id FROM {x}), 40, 64))"
    )
    spark.createDataFrame([(r["ROWTIME"], r["id"], r["hr"]) for r in rows], schema).createOrReplaceTempView("cforest_t")
    expected = sorted(tuple(r) for r in spark.sql(sql.format(x="cforest_t")).collect())
    batches = [{"x": rows[i : i + 50]} for i in range(0, len(rows), 50)]
    batches += [{"x": [{"ROWTIME": t0 + dt.timedelta(hours=h), "id": -1, "hr": 70}]} for h in (1, 2)]
    folder = work / "cforest_x"
    folder.mkdir(parents=True)
    spec = {
        "views": ["cforest_x"],
        "folders": [str(folder)],
        "schemas": {"cforest_x": schema},
        "sql": sql.format(x="cforest_x"),
        "batches": [{"cforest_x": b["x"]} for b in _jsonable_batches(batches)],
        "out": str(work / "out"),
        "checkpoint": str(work / "checkpoint"),
    }
    return spec, expected


def _cluster_conf(cluster: Cluster) -> dict[str, str]:
    return {
        "spark.master": cluster.url,
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.executor.memory": "512m",
        "spark.executor.extraJavaOptions": SHORT_LIVED_JVM_OPTIONS,
        "spark.executor.cores": "1",
        "spark.cores.max": "2",
        "spark.sql.shuffle.partitions": "2",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.adaptive.enabled": "false",
        "spark.driver.memory": "1g",
    }


def _generated_spec(cluster: Cluster, work: Path, kind: str, seed: int) -> dict[str, Any]:
    spec = child_spec(work, kind, seed, f"c{kind}", _cluster_conf(cluster))
    del spec["conf"]  # the application's, for every run
    return spec


def _sliding_spec(cluster: Cluster, work: Path) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """A sliding window (docs/semantics.md §12): its run's spec and the reference model's rows."""
    from tests.spark.test_restart import _jsonable_batches
    from tests.spark.test_sliding_windows import restart_case

    batches, schemas, sql, expected = restart_case(seed=41)
    folder = work / "csliding_x"
    folder.mkdir(parents=True)
    spec = {
        "views": ["csliding_x"],
        "folders": [str(folder)],
        "schemas": {"csliding_x": schemas["x"]},
        "sql": sql.format(x="csliding_x"),
        "batches": [{"csliding_x": b["x"]} for b in _jsonable_batches(batches)],
        "out": str(work / "out"),
        "checkpoint": str(work / "checkpoint"),
    }
    return spec, expected


def _drive(cluster: Cluster, work: Path, spec: dict[str, Any], kills: dict[int, tuple[int, str]]) -> None:
    """Runs `spec`'s runs in one child driver on the cluster to their end. In run ``k`` of ``kills``
    (``k: (i, worker)``), kills ``worker`` right after batch ``i``'s files are written, while that
    batch is in progress; after the first kill a new worker takes the killed one's place, and the
    next kill waits until the application has an executor on it."""
    (work / "spec.json").write_text(json.dumps(spec))
    driver_log = work / "driver.log"
    with open(driver_log, "w") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.spark.restart_child", str(work / "spec.json")],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=short_lived_env(dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")),
        )
    lines = []
    killed: list[str] = []
    run = -1
    try:
        assert child.stdout is not None
        for line in child.stdout:
            line = line.strip()
            lines.append(line)
            if line.startswith("RUN "):
                run = int(line.split()[1])
                if run in kills and killed:
                    # The application's third executor (on the worker started after the first kill).
                    cluster.wait_for_master("Launching executor", 3)
            elif run in kills and line == f"WROTE {kills[run][0]}" and kills[run][1] not in killed:
                _wait_for_a_batch_in_progress(spec["runs"][run]["checkpoint"])
                cluster.kill(kills[run][1])
                killed.append(kills[run][1])
                if len(killed) == 1:
                    cluster.add_worker(wait=False)
        child.wait(timeout=600)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
    log_tail = driver_log.read_text(errors="replace")[-4000:]
    wanted = [worker for _, worker in kills.values()]
    assert killed == wanted, f"the driver never reached the batches to kill {wanted} after: {lines}\n{log_tail}"
    assert "FINISHED" in lines, f"the streams did not finish after losing workers: {lines}\n{log_tail}"
    master_log = cluster.master_log.read_text(errors="replace")
    assert master_log.count("Removing worker") >= len(killed), "the master never noticed a killed worker"
