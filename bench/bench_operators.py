"""Stream join operators side by side: overjoin's own operator against Spark's native join.

The same interval join, on the same data, through each engine:

  overjoin  SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id
            FROM l AS a [LEFT] JOIN r OVER (RANGE INTERVAL '<W>' SECOND PRECEDING) AS b ON a.k = b.k
            on overjoin's operator (spark.overjoin.join.operator = overjoin, lateness <L>)
  native    the same join written by hand for Spark's StreamingSymmetricHashJoinExec:
            withWatermark(<L>) on both inputs, a.k = b.k AND b.t - W <= a.t <= b.t ... see below
  flink     the same interval join in Flink, when ``apache-flink`` is installed (the ``bench``
            extra); reported as not run otherwise

Both Spark engines read two folders of Parquet files (id, k, rowtime), one file per input per
micro-batch (``Trigger.AvailableNow``), into the ``noop`` sink. Rows arrive out of order within
the lateness (a deterministic jitter of up to 3 s). Engines alternate run by run after one
unreported warm-up of each. The measure is **input rows per CPU-second of the process**
(utime + stime of the JVM, from /proc: local mode runs driver and executors in one process),
not wall time, because this machine is shared. Each run also reports output rows (which must be
equal across engines) and peak state rows.

Run:  python bench/bench_operators.py                 (1M rows per input; about 15 minutes on 2 cores)
      python bench/bench_operators.py --rows 200000   (a quick look)
      python bench/bench_operators.py --help
Writes the section ``## Join operators`` of bench/RESULTS.md.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import replace_section
from bench_join import machine

SECTION = "Join operators"
T0_US = 1_704_067_200_000_000  # 2024-01-01 00:00:00 UTC
SCHEMA = "id BIGINT, k INT, rowtime TIMESTAMP"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@dataclass
class Run:
    engine: str
    input_rows: int
    cpu_seconds: float
    wall_seconds: float
    batches: int
    output_rows: int
    peak_state_rows: int

    @property
    def rows_per_cpu_second(self) -> float:
        return self.input_rows / self.cpu_seconds


def generate(spark: Any, folder: Path, rows: int, files: int, keys: int, step_us: int, jitter_ms: int) -> None:
    """``files`` Parquet files per input of ``rows`` rows in all. Row i's rowtime is T0 + i*step
    (+ step/2 on the right) + a deterministic jitter in [0, jitter_ms) ms; keys are hashed from
    the id. Files go into the watched folders in time order (the file source reads oldest first)."""
    per_file = rows // files
    for side, offset, seed in (("l", 0, 1), ("r", step_us // 2, 2)):
        target = folder / side
        target.mkdir(parents=True)
        for f in range(files):
            tmp = folder / f"tmp-{side}-{f}"
            (
                spark.range(f * per_file, (f + 1) * per_file, numPartitions=1)
                .selectExpr(
                    "id",
                    f"CAST(pmod(hash(id, {seed}), {keys}) AS INT) AS k",
                    f"timestamp_micros({T0_US + offset} + id * {step_us} + ((id * 7919) % {jitter_ms}) * 1000) "
                    "AS rowtime",
                )
                .write.parquet(str(tmp))
            )
            (part,) = tmp.glob("part-*.parquet")
            shutil.move(str(part), target / f"{f:05d}.parquet")
            shutil.rmtree(tmp)
        log(f"  wrote {files} files x {per_file:,} rows to {target}")


def _stream(spark: Any, folder: Path, side: str) -> Any:
    return spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / side))


def overjoin_query(spark: Any, folder: Path, args: argparse.Namespace) -> Any:
    for side in ("l", "r"):
        _stream(spark, folder, side).createOrReplaceTempView(side)
    kind = "LEFT JOIN" if args.how == "left" else "JOIN"
    return spark.sql(
        f"SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id FROM l AS a {kind} "
        f"r OVER (RANGE INTERVAL '{args.window}' SECOND PRECEDING) AS b ON a.k = b.k"
    )


def native_query(spark: Any, folder: Path, args: argparse.Namespace) -> Any:
    """Spark's interval join as a user writes it. In overjoin's terms (docs/semantics.md §3) b's
    life is [b.t, b.t + W] and a's is [a.t, a.t], so they meet iff b.t <= a.t <= b.t + W, and an
    unmatched ``a`` is padded with ROWTIME = a.t. The watermark delay is overjoin's lateness + 1 ms
    (docs/semantics.md §8), so both engines treat the same rows as late."""
    from pyspark.sql import functions as F

    delay_ms = int(args.lateness) * 1000 + 1
    a = _stream(spark, folder, "l").withWatermark("rowtime", f"{delay_ms} milliseconds").alias("a")
    b = _stream(spark, folder, "r").withWatermark("rowtime", f"{delay_ms} milliseconds").alias("b")
    cond = F.expr(f"a.k = b.k AND b.rowtime <= a.rowtime AND a.rowtime <= b.rowtime + INTERVAL {args.window} SECONDS")
    joined = a.join(b, cond, "left_outer" if args.how == "left" else "inner")
    return joined.select(
        F.expr("CASE WHEN b.id IS NULL THEN a.rowtime ELSE greatest(a.rowtime, b.rowtime) END").alias("ROWTIME"),
        F.col("a.id").alias("a_id"),
        F.col("b.id").alias("b_id"),
    )


def jvm_cpu_seconds(spark: Any) -> float:
    """utime + stime of the JVM, from /proc (local mode: driver and executors in one process)."""
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def run_once(spark: Any, engine: str, folder: Path, args: argparse.Namespace, label: str) -> Run:
    spark.conf.set("spark.overjoin.lateness", f"{args.lateness} seconds")
    spark.conf.set("spark.overjoin.join.operator", "overjoin" if engine == "overjoin" else "spark")
    df = overjoin_query(spark, folder, args) if engine == "overjoin" else native_query(spark, folder, args)
    checkpoint = tempfile.mkdtemp(prefix=f"bench-ops-{engine}-")
    cpu0, t0 = jvm_cpu_seconds(spark), time.perf_counter()
    query = (
        df.writeStream.format("noop")
        .outputMode("append")
        .trigger(availableNow=True)
        .option("checkpointLocation", checkpoint)
        .start()
    )
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
    )


def flink_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyflink") is not None


def report(args: argparse.Namespace, runs: list[Run], command: str, versions: str) -> str:
    by = {e: [r for r in runs if r.engine == e] for e in ("overjoin", "native")}
    med = {e: statistics.median(r.rows_per_cpu_second for r in rs) for e, rs in by.items()}
    pairs = [x.rows_per_cpu_second / y.rows_per_cpu_second for x, y in zip(by["overjoin"], by["native"])]
    lines = [
        f"Command: `{command}`  ",
        f"Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}  ",
        f"Software: {versions}",
        "",
        f"Input: {args.rows:,} rows per input, {args.files} Parquet files per input (one per input per "
        f"micro-batch, `Trigger.AvailableNow`, `noop` sink), {args.keys:,} keys, {1_000_000 // args.step_us:,} rows/s "
        f"of event time per input, rows out of order by up to 3 s; `a {args.how.upper()} JOIN b` with a "
        f"{args.window} s RANGE window on `b`, lateness {args.lateness} s; `local[2]`, 2 shuffle partitions, "
        "HDFS-backed state store.",
        "",
        "Measure: input rows per CPU-second of the Spark process (utime + stime from /proc). Engines "
        "alternate run by run after one unreported warm-up of each.",
        "",
        "| run | engine | input rows | CPU s | wall s | input rows / CPU s | batches | output rows | peak state rows |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(runs, 1):
        lines.append(
            f"| {i} | {r.engine} | {r.input_rows:,} | {r.cpu_seconds:.1f} | {r.wall_seconds:.1f} | "
            f"{r.rows_per_cpu_second:,.0f} | {r.batches} | {r.output_rows:,} | {r.peak_state_rows:,} |"
        )
    same = len({r.output_rows for r in runs}) == 1
    lines += [
        "",
        f"Median input rows per CPU-second: overjoin **{med['overjoin']:,.0f}**, native **{med['native']:,.0f}**; "
        f"ratio **{med['overjoin'] / med['native']:.2f}x**. Per pair: " + ", ".join(f"{p:.2f}" for p in pairs) + ".",
        "",
        (
            f"Output rows equal in every run ({runs[0].output_rows:,})."
            if same
            else "**Output rows differ between runs** (see the table): the comparison is not of equal work."
        ),
        "",
        "Flink: "
        + (
            "measured separately (not wired in this release)."
            if flink_available()
            else "`apache-flink` is not installed here, not run."
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rows", type=int, default=1_000_000, help="rows per input (default 1000000)")
    p.add_argument("--files", type=int, default=100, help="files (= micro-batches) per input (default 100)")
    p.add_argument("--keys", type=int, default=10_000, help="distinct join keys (default 10000)")
    p.add_argument("--step-us", type=int, default=1000, help="event time between rows, us (default 1000: 1k rows/s)")
    p.add_argument("--window", type=int, default=60, help="RANGE window on the right input, seconds (default 60)")
    p.add_argument("--lateness", type=int, default=10, help="lateness, seconds (default 10)")
    p.add_argument("--how", choices=("inner", "left"), default="left", help="join type (default left)")
    p.add_argument("--runs", type=int, default=3, help="runs of each engine, alternating (default 3)")
    p.add_argument("--no-write", action="store_true", help="print the report, leave RESULTS.md alone")
    args = p.parse_args(argv)
    command = "python bench/bench_operators.py" + "".join(
        " " + shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )

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
    versions = (
        f"Spark {spark.version}, Java {spark._jvm.System.getProperty('java.version')}, "
        f"Python {platform.python_version()}, overjoin {overjoin.__version__}"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-ops-data-"))
    runs: list[Run] = []
    try:
        log(f"generating input in {folder} ...")
        generate(spark, folder, args.rows, args.files, args.keys, args.step_us, 3000)
        for engine in ("overjoin", "native"):
            log(f"  warm-up {engine} (not reported) ...")
            run_once(spark, engine, folder, args, f"warm-up {engine}")
        for i, engine in enumerate(["overjoin", "native"] * args.runs, 1):
            label = f"run {i}/{2 * args.runs} {engine}"
            r = run_once(spark, engine, folder, args, label)
            log(
                f"  {label}: {r.input_rows:,} rows, {r.cpu_seconds:.1f} CPU s ({r.wall_seconds:.1f} s wall) = "
                f"{r.rows_per_cpu_second:,.0f} rows/CPU s, {r.output_rows:,} out, peak state {r.peak_state_rows:,}"
            )
            runs.append(r)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text = report(args, runs, command, versions)
    print(text)
    if not args.no_write:
        replace_section(SECTION, text)
        log(f"wrote the '{SECTION}' section of bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
