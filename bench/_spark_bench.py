"""What bench/bench_operators.py and bench/bench_sliding.py share on the Spark side: the session,
one measured run of a streaming query to its end, a run's record and the report's table.

A run starts the query on ``Trigger.AvailableNow`` into the ``noop`` sink and measures the CPU
seconds of the JVM (utime + stime from /proc: local mode runs Spark's driver and executors in one
process) from its start to its end, and wall seconds; input and output rows and peak state rows come
from the query's progress, every micro-batch of it, and the state on disk is the size of the
checkpoint's ``state`` folder when the query has ended.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_join import machine

__all__ = [
    "MEASURE",
    "STORES",
    "Run",
    "Size",
    "batch_files",
    "command_line",
    "fmt_n",
    "folder_bytes",
    "jvm_cpu_seconds",
    "log",
    "report_head",
    "run_options",
    "run_table",
    "run_to_end",
    "start_session",
    "thread_table",
    "versions",
]

# --store: Spark's state store provider for every Spark engine, and how the report names it.
STORES = {
    "hdfs": ("org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider", "HDFS-backed state store"),
    "rocksdb": (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        "RocksDB state store with changelog checkpointing",
    ),
}


# The measure of the engine-against-engine benchmarks, as their reports state it.
MEASURE = (
    "Measure: input rows per CPU-second of the engine's JVM (utime + stime from /proc, from the query's "
    "start to its end; Spark's session and Flink's JVM and MiniCluster are started once, before the "
    "warm-ups)."
)


def command_line(script: str, argv: list[str] | None) -> str:
    """How the benchmark was run, for its report: ``python bench/<script>`` and its arguments."""
    return f"python bench/{script}" + "".join(
        " " + shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )


def versions(spark: Any) -> str:
    """Spark's, Java's, Python's and overjoin's versions, for a report."""
    import overjoin

    return (
        f"Spark {spark.version}, Java {spark._jvm.System.getProperty('java.version')}, "
        f"Python {platform.python_version()}, overjoin {overjoin.__version__}"
    )


def report_head(command: str, software: str) -> list[str]:
    """The first lines of a report: the command, the date, the machine and the software."""
    return [
        f"Command: `{command}`  ",
        f"Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}  ",
        f"Software: {software}",
        "",
    ]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@dataclass
class Run:
    engine: str
    input_rows: int
    cpu_seconds: float
    wall_seconds: float
    batches: int | None  # None: not a micro-batch engine (Flink)
    output_rows: int
    peak_state_rows: int | None  # None: not exposed (Flink)
    late_rows: int | None = None  # rows a Spark operator dropped as late (numRowsDroppedByWatermark)
    checkpoints: int | None = None  # Flink's completed checkpoints (None: not a Flink run)
    # Spark: bytes of the checkpoint's state folder at the query's end (every version the store keeps);
    # None: not a Spark run.
    state_bytes: int | None = None
    checkpoint_max_bytes: int | None = None  # Flink: the largest completed checkpoint's state size
    checkpoint_avg_ms: int | None = None  # Flink: the completed checkpoints' average end-to-end duration
    # Spark: the run's CPU seconds by kind of JVM thread (thread_groups); empty: not measured.
    threads: dict[str, float] = field(default_factory=dict)

    @property
    def rows_per_cpu_second(self) -> float:
        return self.input_rows / self.cpu_seconds


@dataclass
class Size:
    """The runs at one size of micro-batch: ``seconds`` of event time per micro-batch, ``files``
    per input; ``checkpoint_ms``: flink-ckpt's interval at this size (None: not run)."""

    seconds: float
    files: int
    runs: list[Run] = field(default_factory=list)
    checkpoint_ms: int | None = None

    def medians(self) -> dict[str, float]:
        engines = list(dict.fromkeys(r.engine for r in self.runs))
        return {e: statistics.median(r.rows_per_cpu_second for r in self.runs if r.engine == e) for e in engines}

    def median_cpu(self, engine: str) -> float:
        return statistics.median(r.cpu_seconds for r in self.runs if r.engine == engine)

    def ratio(self, other: str = "flink") -> tuple[float, list[float]]:
        """overjoin's median input rows per CPU-second over ``other``'s, and the runs' ratios in order."""
        med = self.medians()
        ours = [r for r in self.runs if r.engine == "overjoin"]
        theirs = [r for r in self.runs if r.engine == other]
        pairs = [x.rows_per_cpu_second / y.rows_per_cpu_second for x, y in zip(ours, theirs)]
        return med["overjoin"] / med[other], pairs


# --checkpoints: who writes the Spark engines' checkpoint files (docs/operator.md, "Checkpoints on
# the local file system"); the value of spark.sql.streaming.checkpointFileManagerClass (None: unset).
CHECKPOINTS = {
    "overjoin": (
        "io.overjoin.streaming.LocalCheckpointFileManager",
        "checkpoints by overjoin's file manager (overjoin.session()'s default; no process forked per file)",
    ),
    "spark": (None, "checkpoints by Spark's own file manager (Hadoop forks chmod and readlink per file)"),
}


def set_checkpoints(spark: Any, which: str) -> None:
    """Name ``--checkpoints``' manager in the session (queries started after this use it)."""
    manager = CHECKPOINTS[which][0]
    key = "spark.sql.streaming.checkpointFileManagerClass"
    spark.conf.set(key, manager) if manager else spark.conf.unset(key)


def batch_files(batch_seconds: str, rows: int, step_us: int) -> list[tuple[int, int]]:
    """(seconds, files) of each size of ``--batch-seconds`` (comma-separated seconds of event time
    per micro-batch) for ``rows`` rows per input ``step_us`` apart: one file per micro-batch."""
    return [(s, max(1, rows * step_us // (s * 1_000_000))) for s in (int(x) for x in batch_seconds.split(","))]


def run_options(p: argparse.ArgumentParser, per: str = "") -> None:
    """--store, --checkpoints, --runs, --warmups and --no-write, as every engine-against-engine benchmark takes them."""
    p.add_argument(
        "--store",
        choices=tuple(STORES),
        default="hdfs",
        help="Spark's state store for every Spark engine (default hdfs, Spark's default; rocksdb: with "
        "changelog checkpointing)",
    )
    p.add_argument(
        "--checkpoints",
        choices=tuple(CHECKPOINTS),
        default="overjoin",
        help="who writes every Spark engine's checkpoint files (default overjoin: overjoin.session()'s file "
        "manager; spark: Spark's own, which forks chmod and readlink per file without Hadoop's native library)",
    )
    p.add_argument("--runs", type=int, default=3, help=f"runs of each engine{per}, alternating (default 3)")
    p.add_argument(
        "--warmups",
        type=int,
        default=1,
        help=f"unreported runs of each engine{per} before the measured ones (default 1; both JVMs keep "
        "getting faster over the first few runs)",
    )
    p.add_argument("--no-write", action="store_true", help="print the report, leave RESULTS.md alone")


def fmt_n(x: int | None) -> str:
    return "n/a" if x is None else f"{x:,}"


def start_session(extra: dict[str, str] | None = None) -> Any:
    """overjoin's session as every benchmark engine runs it: ``local[2]``, 2 shuffle partitions,
    no UI, UTC, AQE off, a 4 GB driver, every micro-batch's progress kept; ``extra`` settings after."""
    import overjoin

    log("starting Spark ...")
    spark = overjoin.session(
        **{
            "spark.master": "local[2]",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.adaptive.enabled": "false",
            "spark.driver.memory": "4g",
            # Every micro-batch's progress is counted (Spark keeps the last 100 by default).
            "spark.sql.streaming.numRecentProgressUpdates": "100000",
            **(extra or {}),
        }
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder`` (0 if there is none)."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _stat_cpu_seconds(stat: str) -> float:
    """utime + stime of a /proc ``stat`` line (a process's or a thread's), in seconds."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _jvm_pid(spark: Any) -> int:
    return int(spark._jvm.java.lang.ProcessHandle.current().pid())


def jvm_cpu_seconds(spark: Any) -> float:
    """utime + stime of the JVM, from /proc (local mode: driver and executors in one process)."""
    return _stat_cpu_seconds(Path(f"/proc/{_jvm_pid(spark)}/stat").read_text())


# Kinds of JVM threads, by the start of the name Linux keeps for a thread (15 characters), in order.
THREAD_GROUPS = (
    ("JIT compilers", ("C2 CompilerThre", "C1 CompilerThre")),
    ("GC and VM", ("GC Thread", "G1 ", "VM Thread", "VM Periodic")),
    ("task threads", ("Executor task",)),  # running a task ("...launch worker") or between tasks ("...idle worker")
    ("state store maintenance", ("state-store-mai",)),
)


def thread_cpu_seconds(spark: Any) -> dict[str, float]:
    """CPU seconds (utime + stime) of each live JVM thread, summed by kind (``THREAD_GROUPS``, else
    "other"), from /proc/<pid>/task. A thread that has ended is in no group: the difference between
    two readings and the process's own is what threads that ended in between used."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{_jvm_pid(spark)}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # ended while read
        name = stat.rsplit(")", 1)[0].split("(", 1)[1]
        group = next((g for g, starts in THREAD_GROUPS if name.startswith(starts)), "other")
        out[group] = out.get(group, 0.0) + _stat_cpu_seconds(stat)
    return out


def run_to_end(spark: Any, df: Any, engine: str, label: str, sink: str = "noop", path: str | None = None) -> Run:
    """Run the streaming ``df`` on ``Trigger.AvailableNow`` into ``sink`` (``path``: a file
    sink's folder) with a fresh checkpoint, to its end, and measure it."""
    checkpoint = tempfile.mkdtemp(prefix=f"bench-{engine}-")
    threads0 = thread_cpu_seconds(spark)
    cpu0, t0 = jvm_cpu_seconds(spark), time.perf_counter()
    writer = (
        df.writeStream.format(sink)
        .outputMode("append")
        .trigger(availableNow=True)
        .option("checkpointLocation", checkpoint)
    )
    query = writer.start(path) if path else writer.start()
    last = -1
    while not query.awaitTermination(5):
        p = query.lastProgress
        if p and p["batchId"] != last and p["batchId"] % 10 == 0:
            last = p["batchId"]
            log(f"    {label}: batch {last}, {time.perf_counter() - t0:5.1f} s")
    cpu, wall = jvm_cpu_seconds(spark) - cpu0, time.perf_counter() - t0
    threads1 = thread_cpu_seconds(spark)
    threads = {g: threads1.get(g, 0.0) - threads0.get(g, 0.0) for g in {*threads0, *threads1}}
    # The query's micro-batch thread ends with the query (AvailableNow): its CPU is here.
    threads["threads that ended"] = max(0.0, cpu - sum(threads.values()))
    if query.exception():
        raise RuntimeError(f"{engine} failed: {query.exception()}")
    progress = list(query.recentProgress)
    state_bytes = folder_bytes(Path(checkpoint) / "state")
    shutil.rmtree(checkpoint, ignore_errors=True)
    return Run(
        engine=engine,
        input_rows=sum(p["numInputRows"] for p in progress),
        cpu_seconds=cpu,
        wall_seconds=wall,
        batches=len(progress),
        output_rows=sum(max(0, p["sink"].get("numOutputRows", 0)) for p in progress),
        peak_state_rows=max((sum(o["numRowsTotal"] for o in p["stateOperators"]) for p in progress), default=0),
        late_rows=sum(o.get("numRowsDroppedByWatermark", 0) for p in progress for o in p["stateOperators"]),
        state_bytes=state_bytes,
        threads=threads,
    )


def thread_table(runs: list[Run]) -> list[str]:
    """Where each Spark run's CPU went, by kind of JVM thread (seconds), one line per run as numbered
    in ``run_table``; empty when no run was measured so."""
    measured = [(i, r) for i, r in enumerate(runs, 1) if r.threads]
    if not measured:
        return []
    groups = [g for g, _ in THREAD_GROUPS] + ["other", "threads that ended"]
    head = "| run | engine | CPU s | " + " | ".join(groups) + " |"
    lines = [head, "|---" * (len(groups) + 3) + "|"]
    for i, r in measured:
        lines.append(
            f"| {i} | {r.engine} | {r.cpu_seconds:.1f} | "
            + " | ".join(f"{r.threads.get(g, 0.0):.1f}" for g in groups)
            + " |"
        )
    return lines


def run_table(runs: list[Run]) -> list[str]:
    """The report's table of runs, one line per run, in markdown. The columns ``state on disk``
    (Spark's runs) and ``checkpoints`` (Flink's) are there when some run has them."""
    disk = any(r.state_bytes is not None for r in runs)
    ckpt = any(r.checkpoints for r in runs)
    head = (
        "| run | engine | input rows | CPU s | wall s | input rows / CPU s | batches | output rows | peak state rows |"
    )
    head += " state on disk, bytes |" * disk + " checkpoints |" * ckpt
    lines = [head, "|---" * head.count(" | ") + "|---|"]
    for i, r in enumerate(runs, 1):
        lines.append(
            f"| {i} | {r.engine} | {r.input_rows:,} | {r.cpu_seconds:.1f} | {r.wall_seconds:.1f} | "
            f"{r.rows_per_cpu_second:,.0f} | {fmt_n(r.batches)} | {r.output_rows:,} | {fmt_n(r.peak_state_rows)} |"
            + f" {fmt_n(r.state_bytes)} |" * disk
            + f" {fmt_n(r.checkpoints)} |" * ckpt
        )
    return lines
