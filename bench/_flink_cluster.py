"""What bench/flink_join.py and bench/flink_over.py share: a Flink MiniCluster that runs one query.

Runs under the Python of a venv with ``apache-flink`` 2.3 (see bench/bench_operators.py). A
``FlinkCluster`` compiles the counting sink (bench/flink/CountingSinkFactory.java) onto the gateway
JVM's class path, starts a local MiniCluster (1 task manager, 2 slots, parallelism 2) in pyflink's
gateway JVM for the whole process, and a streaming ``TableEnvironment`` against it, with state
backend ``hashmap`` (heap) and checkpointing off (Flink's default) unless asked for
(``--checkpoint-ms``: exactly-once checkpoints to local files under the cluster's temporary folder).
A script adds the options every Flink script takes with ``cluster_options``, starts the cluster with
``FlinkCluster.from_args``, creates its tables with ``execute_sql`` and gives its ``INSERT`` to
``run``.

``run`` returns one JSON-able dict: input rows (the source tasks' records out, from the finished
job's graph), output rows (the counting sink's), CPU seconds = utime + stime of the gateway JVM (from
/proc, from just before the INSERT is submitted to the end of the job), wall seconds, the Python
driver's own CPU seconds over the same span (not in ``cpu_seconds``: it only waits), the sink's
checksum when its table asks for one (``'checksum' = 'true'``), the job's completed checkpoints and
the largest one's state size in bytes and their average end-to-end duration in ms
(``checkpoint_max_bytes``, ``checkpoint_avg_ms``; 0 without checkpoints), and
``peak_state_rows`` = "n/a": the hashmap state backend exposes no count of the rows it holds.

``serve`` reads commands on stdin (used through bench/_flink.py): ``run [NAME]`` prints a run's
JSON line (NAME: one of the script's INSERTs, default the first), ``sample N`` prints the rows
whose id is a multiple of N as Flink reads them (to check that Flink reads what Spark wrote); end of
input ends the process.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JAVA_SOURCE = HERE / "flink" / "CountingSinkFactory.java"
SINK_FACTORY = "overjoin.bench.CountingSinkFactory"
PARALLELISM = 2
STATE_NOTE = "not exposed: Flink's hashmap state backend has no metric of the rows it holds"


def log(msg: str) -> None:
    print(f"[flink] {msg}", file=sys.stderr, flush=True)


def flink_home() -> Path:
    import pyflink

    return Path(pyflink.__file__).resolve().parent


def build_counting_sink(work: Path) -> Path:
    """Compile the counting sink into ``work/classes`` (with its service file) and return it."""
    java_home = os.environ.get("JAVA_HOME")
    javac = (java_home and shutil.which("javac", path=os.path.join(java_home, "bin"))) or shutil.which("javac")
    if not javac:
        raise SystemExit("javac (a JDK) is needed to compile the counting sink")
    classes = work / "classes"
    classes.mkdir(parents=True)
    classpath = os.pathsep.join(sorted(glob.glob(str(flink_home() / "lib" / "*.jar"))))
    subprocess.run([javac, "-nowarn", "-cp", classpath, "-d", str(classes), str(JAVA_SOURCE)], check=True)
    services = classes / "META-INF" / "services"
    services.mkdir(parents=True)
    (services / "org.apache.flink.table.factories.Factory").write_text(SINK_FACTORY + "\n")
    return classes


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def driver_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


class FlinkCluster:
    """A MiniCluster in pyflink's gateway JVM and a streaming TableEnvironment that submits to it.

    ``checkpoint_ms`` > 0 turns on checkpointing at that interval: exactly-once, hashmap state,
    checkpoints written to local files under the cluster's temporary folder (``filesystem``
    checkpoint storage); 0 leaves it off, Flink's default."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> FlinkCluster:
        """The cluster of a script's ``cluster_options``."""
        return cls(args.heap, args.checkpoint_ms)

    def __init__(self, heap: str = "4g", checkpoint_ms: int = 0) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="flink-bench-"))
        classes = build_counting_sink(self.work)
        # The gateway JVM is started by the first pyflink call below, with these.
        os.environ["HADOOP_CLASSPATH"] = os.pathsep.join(
            p for p in (str(classes), os.environ.get("HADOOP_CLASSPATH", "")) if p
        )
        os.environ.setdefault("FLINK_LOG_DIR", str(self.work / "log"))
        os.environ.setdefault("JVM_ARGS", f"-Xmx{heap}")

        from pyflink.common import Configuration
        from pyflink.java_gateway import get_gateway
        from pyflink.table import EnvironmentSettings, TableEnvironment

        self.jvm = get_gateway().jvm
        self.pid = int(self.jvm.java.lang.ProcessHandle.current().pid())
        self.sink = getattr(self.jvm, SINK_FACTORY)
        self.sink.reset()  # fails here, before any run, if the class is not on the class path

        settings = {
            "parallelism.default": str(PARALLELISM),
            "state.backend.type": "hashmap",
            "table.local-time-zone": "UTC",
        }
        if checkpoint_ms > 0:
            settings["execution.checkpointing.interval"] = f"{checkpoint_ms} ms"
            settings["execution.checkpointing.mode"] = "EXACTLY_ONCE"
            settings["execution.checkpointing.storage"] = "filesystem"
            settings["execution.checkpointing.dir"] = (self.work / "checkpoints").as_uri()
        conf = self.jvm.org.apache.flink.configuration.Configuration()
        for key, value in {**settings, "taskmanager.numberOfTaskSlots": str(PARALLELISM)}.items():
            conf.setString(key, value)
        mc = self.jvm.org.apache.flink.runtime.minicluster
        self.cluster = mc.MiniCluster(
            mc.MiniClusterConfiguration.Builder()
            .withRandomPorts()
            .setConfiguration(conf)
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(PARALLELISM)
            .build()
        )
        self.cluster.start()
        rest = self.cluster.getRestAddress().get()
        self.rest = str(rest.toString())

        table_conf = Configuration()
        for key, value in {
            **settings,
            "execution.target": "remote",
            "rest.address": rest.getHost(),
            "rest.port": str(rest.getPort()),
        }.items():
            table_conf.set_string(key, value)
        self.t_env = TableEnvironment.create(
            EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(table_conf).build()
        )
        self.version = str(self.jvm.org.apache.flink.runtime.util.EnvironmentInformation.getVersion())
        self.java = str(self.jvm.System.getProperty("java.version"))
        log(f"Flink {self.version} MiniCluster at {self.rest} in JVM {self.pid}; logs in {os.environ['FLINK_LOG_DIR']}")

    def run(self, insert: str) -> dict[str, Any]:
        """Run one INSERT to its end and measure it."""
        self.sink.reset()
        cpu0, drv0, t0 = process_cpu_seconds(self.pid), driver_cpu_seconds(), time.perf_counter()
        result = self.t_env.execute_sql(insert)
        job_id = str(result.get_job_client().get_job_id())
        result.wait()
        wall = time.perf_counter() - t0
        cpu, drv = process_cpu_seconds(self.pid) - cpu0, driver_cpu_seconds() - drv0
        graph = self.cluster.getArchivedExecutionGraph(
            self.jvm.org.apache.flink.api.common.JobID.fromHexString(job_id)
        ).get()
        state = str(graph.getState().toString())
        if state != "FINISHED":
            raise RuntimeError(f"Flink job {job_id} ended {state}")
        input_rows = 0
        vertices = graph.getVerticesTopologically().iterator()
        while vertices.hasNext():
            vertex = vertices.next()
            if str(vertex.getName()).startswith("Source:"):
                for task in vertex.getTaskVertices():
                    input_rows += int(task.getCurrentExecutionAttempt().getIOMetrics().getNumRecordsOut())
        stats = graph.getCheckpointStatsSnapshot()
        checkpoints = int(stats.getCounts().getNumberOfCompletedCheckpoints()) if stats is not None else 0
        summary = stats.getSummaryStats() if checkpoints else None
        max_bytes = int(summary.getStateSizeStats().getMaximum()) if summary else 0
        avg_ms = int(summary.getEndToEndDurationStats().getAverage()) if summary else 0
        return {
            "engine": "flink",
            "input_rows": input_rows,
            "output_rows": int(self.sink.rows()),
            "checksum": int(self.sink.checksum()),
            "checkpoints": checkpoints,
            "checkpoint_max_bytes": max_bytes,
            "checkpoint_avg_ms": avg_ms,
            "cpu_seconds": round(cpu, 3),
            "wall_seconds": round(wall, 3),
            "driver_cpu_seconds": round(drv, 3),
            "peak_state_rows": "n/a",
            "peak_state_rows_note": STATE_NOTE,
            "job_id": job_id,
            "flink_version": self.version,
            "java_version": self.java,
            "parallelism": PARALLELISM,
            "state_backend": "hashmap",
            "jvm_pid": self.pid,
        }

    def sample(self, tables: list[str], columns: str, every: int) -> dict[str, Any]:
        """The rows of each table whose id is a multiple of ``every`` (``columns`` of them), sorted."""
        rows = {}
        for name in tables:
            with self.t_env.execute_sql(f"SELECT {columns} FROM {name} WHERE MOD(id, {every}) = 0").collect() as it:
                rows[name] = sorted([int(r[0]), int(r[1]), *(str(x) for x in r[2:])] for r in it)
        return {"sample": rows}

    def close(self) -> None:
        try:
            self.cluster.close()
        finally:
            shutil.rmtree(self.work, ignore_errors=True)


def cluster_options(p: argparse.ArgumentParser) -> None:
    """The options of every Flink script: its runs, the gateway JVM's heap, checkpointing, the plan
    and ``--serve``."""
    p.add_argument("--runs", type=int, default=1, help="runs, one JSON line each (default 1; not with --serve)")
    p.add_argument(
        "--heap", default="4g", help="gateway JVM -Xmx unless JVM_ARGS is set (default 4g, as Spark's driver)"
    )
    p.add_argument(
        "--checkpoint-ms",
        type=int,
        default=0,
        help="checkpoint interval, ms: exactly-once, to local files (default 0: checkpointing off)",
    )
    p.add_argument("--explain", action="store_true", help="print Flink's plan of the query to stderr first")
    p.add_argument("--serve", action="store_true", help="read commands (run [NAME], sample N) on stdin")


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def serve(
    cluster: FlinkCluster, inserts: dict[str, str], sample: Callable[[int], dict[str, Any]], runs: int, serve: bool
) -> int:
    """Without ``serve``: ``runs`` runs of the first INSERT, one JSON line each. With it: the
    ``ready`` line, then one command per line of stdin (see the module's doc)."""
    first = next(iter(inserts))
    try:
        if not serve:
            for _ in range(runs):
                emit(cluster.run(inserts[first]))
            return 0
        emit({"ready": True, "flink_version": cluster.version, "java_version": cluster.java, "jvm_pid": cluster.pid})
        for line in sys.stdin:
            cmd = line.split()
            if not cmd:
                continue
            try:
                if cmd[0] == "run":
                    emit(cluster.run(inserts[cmd[1] if len(cmd) > 1 else first]))
                elif cmd[0] == "sample":
                    emit(sample(int(cmd[1])))
                else:
                    emit({"error": f"unknown command {line.strip()!r}"})
            except Exception as e:  # reported to the caller, which stops
                emit({"error": f"{type(e).__name__}: {e}"})
        return 0
    finally:
        cluster.close()
