"""What bench/bench_operators.py and bench/bench_sliding.py share on the Spark side: the session,
one measured run of a streaming query to its end, a run's record and the report's table.

A run starts the query on ``Trigger.AvailableNow`` into the ``noop`` sink and measures the CPU
seconds of the JVM (utime + stime from /proc: local mode runs Spark's driver and executors in one
process) from its start to its end, and wall seconds; input and output rows and peak state rows come
from the query's progress, every micro-batch of it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["STORES", "Run", "fmt_n", "jvm_cpu_seconds", "log", "run_table", "run_to_end", "start_session"]

# --store: Spark's state store provider for every Spark engine, and how the report names it.
STORES = {
    "hdfs": ("org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider", "HDFS-backed state store"),
    "rocksdb": (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        "RocksDB state store with changelog checkpointing",
    ),
}


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

    @property
    def rows_per_cpu_second(self) -> float:
        return self.input_rows / self.cpu_seconds


def fmt_n(x: int | None) -> str:
    return "n/a" if x is None else f"{x:,}"


def start_session() -> Any:
    """overjoin's session as every benchmark engine runs it: ``local[2]``, 2 shuffle partitions,
    no UI, UTC, AQE off, a 4 GB driver, every micro-batch's progress kept."""
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
        }
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def jvm_cpu_seconds(spark: Any) -> float:
    """utime + stime of the JVM, from /proc (local mode: driver and executors in one process)."""
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def run_to_end(spark: Any, df: Any, engine: str, label: str, sink: str = "noop", path: str | None = None) -> Run:
    """Run the streaming ``df`` on ``Trigger.AvailableNow`` into ``sink`` (``path``: a file
    sink's folder) with a fresh checkpoint, to its end, and measure it."""
    checkpoint = tempfile.mkdtemp(prefix=f"bench-{engine}-")
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
    if query.exception():
        raise RuntimeError(f"{engine} failed: {query.exception()}")
    progress = list(query.recentProgress)
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
    )


def run_table(runs: list[Run]) -> list[str]:
    """The report's table of runs, one line per run, in markdown."""
    lines = [
        "| run | engine | input rows | CPU s | wall s | input rows / CPU s | batches | output rows | peak state rows |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(runs, 1):
        lines.append(
            f"| {i} | {r.engine} | {r.input_rows:,} | {r.cpu_seconds:.1f} | {r.wall_seconds:.1f} | "
            f"{r.rows_per_cpu_second:,.0f} | {fmt_n(r.batches)} | {r.output_rows:,} | {fmt_n(r.peak_state_rows)} |"
        )
    return lines
