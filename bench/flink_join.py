"""Flink's interval join for bench/bench_operators.py: the same join, on the same rows, in Flink.

Run with the Python of a venv that has ``apache-flink`` 2.3 (it cannot share a venv with
overjoin's test or server extras, see bench/bench_operators.py):

  python3 -m venv /work/flinkenv && /work/flinkenv/bin/pip install 'apache-flink==2.3.*'
  /work/flinkenv/bin/python bench/flink_join.py --left DIR --right DIR [--how inner] [--runs 3]

Each input is a folder holding ONE CSV file of ``id,k,rowtime`` rows in time order (rowtime as
``yyyy-MM-dd HH:mm:ss.SSSSSS``, UTC). One file, because the ``filesystem`` source reads each file
as one split and two source subtasks would read the splits of a folder in any order: rows of a
later file read first would make the rows of the earlier ones late.

What runs: Flink in streaming mode on a local MiniCluster (1 task manager, 2 slots, parallelism 2)
that lives in pyflink's gateway JVM for the whole process, so that a run pays for planning,
submission and execution but not for JVM or cluster start-up (as Spark's session is reused);
state backend ``hashmap`` (heap), checkpointing off (Flink's default). The query::

  INSERT INTO out SELECT <ROWTIME>, a.id AS a_id, b.id AS b_id
  FROM l AS a [LEFT] JOIN r AS b ON a.k = b.k
   AND b.rt <= a.rt AND a.rt <= b.rt + INTERVAL 'W' SECOND                -- the interval join
   AND b.rowtime <= a.rowtime AND a.rowtime <= b.rowtime + INTERVAL 'W' SECOND

with watermarks ``rt - INTERVAL 'L' SECOND`` on both inputs. ``rowtime`` is TIMESTAMP(6) as in
the Spark engines; ``rt`` is it cast to TIMESTAMP(3), because a Flink time attribute has at most
millisecond precision: the planner makes the ``rt`` bounds the interval join's window (a superset:
the cast is monotone) and keeps the exact microsecond bounds as the join's remaining condition.

The sink ``overjoin-count`` (bench/flink/CountingSinkFactory.java, compiled here with ``javac``
and put on the gateway JVM's class path) discards rows like ``blackhole`` and counts them exactly:
``blackhole`` reports no output count (the task's records-out metric of a sink is 0).

Each run prints one JSON line: input rows (the source tasks' records out, from the finished job's
graph), output rows, CPU seconds = utime + stime of the gateway JVM (from /proc, from just before
the INSERT is submitted to the end of the job), wall seconds, the Python driver's own CPU seconds
over the same span (not in ``cpu_seconds``: it only waits), and ``peak_state_rows`` = "n/a": the
hashmap state backend exposes no count of the rows it holds.

``--serve`` (used by bench_operators.py) sets up once, then reads commands on stdin: ``run``
prints a run's JSON line, ``sample N`` prints the rows whose id is a multiple of N as Flink reads
them (to check that Flink reads what Spark wrote); end of input ends the process.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JAVA_SOURCE = HERE / "flink" / "CountingSinkFactory.java"
SINK_FACTORY = "overjoin.bench.CountingSinkFactory"
PARALLELISM = 2
STATE_NOTE = "not exposed: Flink's hashmap state backend has no metric of the rows it holds"


def log(msg: str) -> None:
    print(f"[flink_join] {msg}", file=sys.stderr, flush=True)


def flink_home() -> Path:
    import pyflink

    return Path(pyflink.__file__).resolve().parent


def build_counting_sink(work: Path) -> Path:
    """Compile the counting sink into ``work/classes`` (with its service file) and return it."""
    java_home = os.environ.get("JAVA_HOME")
    javac = (java_home and shutil.which("javac", path=os.path.join(java_home, "bin"))) or shutil.which("javac")
    if not javac:
        raise SystemExit("flink_join.py: javac (a JDK) is needed to compile the counting sink")
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


class FlinkJoin:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.work = Path(tempfile.mkdtemp(prefix="flink-join-"))
        classes = build_counting_sink(self.work)
        # The gateway JVM is started by the first pyflink call below, with these.
        os.environ["HADOOP_CLASSPATH"] = os.pathsep.join(
            p for p in (str(classes), os.environ.get("HADOOP_CLASSPATH", "")) if p
        )
        os.environ.setdefault("FLINK_LOG_DIR", str(self.work / "log"))
        os.environ.setdefault("JVM_ARGS", f"-Xmx{args.heap}")

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
        for name, path in (("l", args.left), ("r", args.right)):
            self.t_env.execute_sql(
                f"CREATE TABLE {name} (id BIGINT, k INT, rowtime TIMESTAMP(6), rt AS CAST(rowtime AS TIMESTAMP(3)), "
                f"WATERMARK FOR rt AS rt - INTERVAL '{args.lateness}' SECOND) "
                f"WITH ('connector' = 'filesystem', 'path' = '{Path(path).resolve()}', 'format' = 'csv')"
            )
        self.t_env.execute_sql(
            "CREATE TABLE out_rows (rowtime TIMESTAMP(6), a_id BIGINT, b_id BIGINT) "
            "WITH ('connector' = 'overjoin-count')"
        )
        kind = "LEFT JOIN" if args.how == "left" else "JOIN"
        w = args.window
        self.insert = (
            "INSERT INTO out_rows SELECT "
            "CASE WHEN b.id IS NULL THEN a.rowtime ELSE GREATEST(a.rowtime, b.rowtime) END, "
            f"a.id, b.id FROM l AS a {kind} r AS b ON a.k = b.k "
            f"AND b.rt <= a.rt AND a.rt <= b.rt + INTERVAL '{w}' SECOND "
            f"AND b.rowtime <= a.rowtime AND a.rowtime <= b.rowtime + INTERVAL '{w}' SECOND"
        )
        if args.scan_only:  # what reading the inputs costs: both sources (CSV, watermarks) into the sink
            self.insert = "INSERT INTO out_rows SELECT rowtime, id, id FROM l UNION ALL SELECT rowtime, id, id FROM r"
        self.version = str(self.jvm.org.apache.flink.runtime.util.EnvironmentInformation.getVersion())
        self.java = str(self.jvm.System.getProperty("java.version"))
        log(f"Flink {self.version} MiniCluster at {self.rest} in JVM {self.pid}; logs in {os.environ['FLINK_LOG_DIR']}")

    def plan(self) -> str:
        return str(self.t_env.explain_sql(self.insert))

    def run(self) -> dict[str, Any]:
        self.sink.reset()
        cpu0, drv0, t0 = process_cpu_seconds(self.pid), driver_cpu_seconds(), time.perf_counter()
        result = self.t_env.execute_sql(self.insert)
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
        return {
            "engine": "flink",
            "input_rows": input_rows,
            "output_rows": int(self.sink.rows()),
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

    def sample(self, every: int) -> dict[str, Any]:
        rows = {}
        for name in ("l", "r"):
            with self.t_env.execute_sql(
                f"SELECT id, k, CAST(rowtime AS STRING) FROM {name} WHERE MOD(id, {every}) = 0"
            ).collect() as it:
                rows[name] = sorted([int(r[0]), int(r[1]), str(r[2])] for r in it)
        return {"sample": rows}

    def close(self) -> None:
        try:
            self.cluster.close()
        finally:
            shutil.rmtree(self.work, ignore_errors=True)


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--left", required=True, help="folder with the left input's CSV file")
    p.add_argument("--right", required=True, help="folder with the right input's CSV file")
    p.add_argument("--window", type=int, default=60, help="RANGE window on the right input, seconds (default 60)")
    p.add_argument("--lateness", type=int, default=10, help="watermark delay, seconds (default 10)")
    p.add_argument("--how", choices=("inner", "left"), default="left", help="join type (default left)")
    p.add_argument("--runs", type=int, default=1, help="runs, one JSON line each (default 1; not with --serve)")
    p.add_argument(
        "--heap", default="4g", help="gateway JVM -Xmx unless JVM_ARGS is set (default 4g, as Spark's driver)"
    )
    p.add_argument(
        "--scan-only",
        action="store_true",
        help="run no join: read both inputs into the sink (the share of the CSV scan in a run)",
    )
    p.add_argument("--explain", action="store_true", help="print Flink's plan of the join to stderr first")
    p.add_argument("--serve", action="store_true", help="read commands (run, sample N) on stdin")
    args = p.parse_args(argv)

    join = FlinkJoin(args)
    try:
        if args.explain:
            log(join.plan())
        if not args.serve:
            for _ in range(args.runs):
                emit(join.run())
            return 0
        emit({"ready": True, "flink_version": join.version, "java_version": join.java, "jvm_pid": join.pid})
        for line in sys.stdin:
            cmd = line.split()
            if not cmd:
                continue
            try:
                if cmd[0] == "run":
                    emit(join.run())
                elif cmd[0] == "sample":
                    emit(join.sample(int(cmd[1])))
                else:
                    emit({"error": f"unknown command {line.strip()!r}"})
            except Exception as e:  # reported to the caller, which stops
                emit({"error": f"{type(e).__name__}: {e}"})
        return 0
    finally:
        join.close()


if __name__ == "__main__":
    sys.exit(main())
