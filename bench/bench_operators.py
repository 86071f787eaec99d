"""Stream join operators side by side: overjoin's own operator against Spark's native join and Flink's.

The same interval join, on the same data, through each engine:

  overjoin  SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id
            FROM l AS a [LEFT] JOIN r OVER (RANGE INTERVAL '<W>' SECOND PRECEDING) AS b ON a.k = b.k
            on overjoin's operator (spark.overjoin.join.operator = overjoin, lateness <L>)
  native    the same join written by hand for Spark's StreamingSymmetricHashJoinExec:
            withWatermark(<L>) on both inputs, a.k = b.k AND b.t - W <= a.t <= b.t ... see below
  floor     no join: the same inputs, watermarks and micro-batches, unioned and shuffled by the key
            into the sink; what every Spark micro-batch query over these inputs pays (reported, and
            subtracted to give each Spark join's own cost)
  flink     the same interval join in Flink 2.3 (bench/flink_join.py: streaming mode, a local
            MiniCluster with parallelism 2, hashmap state), when a Python with ``apache-flink`` is
            given (--flink-python, or $OVERJOIN_FLINK_PYTHON); reported as not run otherwise

The Spark queries read two folders of Parquet files (id, k, rowtime), one file per input per
micro-batch (``Trigger.AvailableNow``), into the ``noop`` sink. Rows arrive out of order within
the lateness (a deterministic jitter of up to 3 s). Each input ends with one **flush row**, in a
file of its own: both at one rowtime an hour past every window, with a key of their own, so they
meet each other (one output row) and nothing else, and they move the watermark past every other
row: the Spark engines then pad every unmatched row of a LEFT join before they stop, as Flink does
at the end of its bounded input. The flush rows are part of the data set (input and output rows)
for every engine. Flink reads the same rows from one CSV file per input (its wheel ships no
Parquet format), written from the Parquet files and checked against them.

Engines alternate run by run after one unreported warm-up of each. The measure is **input rows
per CPU-second of the process** (utime + stime of the JVM, from /proc: local mode runs Spark's
driver and executors in one process, and Flink's MiniCluster runs in pyflink's gateway JVM), not
wall time, because this machine is shared. Each run also reports output rows (which must be equal
across engines) and peak state rows (not exposed by Flink's hashmap state backend).

Flink needs its own venv: ``apache-flink`` 2.3 (through apache-beam) requires pyarrow < 17 and
grpcio < 1.66, and overjoin's ``test`` and ``server`` extras (``pyspark[connect]``) require
pyarrow >= 18 and grpcio >= 1.76, so pip cannot install both; it also needs a JDK's ``javac``
(bench/flink_join.py compiles a counting sink):

  python3 -m venv /work/flinkenv && /work/flinkenv/bin/pip install 'apache-flink==2.3.*'
  python bench/bench_operators.py --flink-python /work/flinkenv/bin/python

Run:  python bench/bench_operators.py                 (1M rows per input; 10-20 minutes on 2 cores)
      python bench/bench_operators.py --rows 200000   (a quick look)
      python bench/bench_operators.py --help
Writes the section ``## Join operators`` of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _flink import FLINK_JOIN, FlinkEngine, find_flink_python, write_flink_inputs, write_flush_file
from _results import replace_section
from _spark_bench import STORES, Run, fmt_n, log, run_table, run_to_end, start_session
from bench_join import machine

SECTION = "Join operators"
T0_US = 1_704_067_200_000_000  # 2024-01-01 00:00:00 UTC
SCHEMA = "id BIGINT, k INT, rowtime TIMESTAMP"


def generate(
    spark: Any,
    folder: Path,
    rows: int,
    files: int,
    keys: int,
    step_us: int,
    jitter_ms: int,
    flush_us: int,
    sides: tuple[tuple[str, int, int], ...] | None = None,
    extra: tuple[str, ...] = (),
) -> None:
    """``files`` Parquet files per input of ``rows`` rows in all. ``sides`` are the inputs as (folder
    name, rowtime offset in us, hash seed): by default ``l`` and ``r``, whose row i has rowtime T0 +
    i*step (+ step/2 on the right) + a deterministic jitter in [0, jitter_ms) ms; keys are hashed
    from the id, and ``extra`` are more columns (SQL expressions of ``id``). Files go into the
    watched folders in time order (the file source reads oldest first), then a last file with the
    input's flush row at ``flush_us`` (see ``write_flush_file``; its ``extra`` columns are NULL)."""
    per_file = rows // files
    for side, offset, seed in sides if sides is not None else (("l", 0, 1), ("r", step_us // 2, 2)):
        target = folder / side
        target.mkdir(parents=True)
        for f in range(files):
            tmp = folder / f"tmp-{side}-{f}"
            (
                spark.range(f * per_file, (f + 1) * per_file, numPartitions=1)
                .selectExpr(
                    "id",
                    f"CAST(pmod(hash(id, {seed}), {keys}) AS INT) AS k",
                    *extra,
                    f"timestamp_micros({T0_US + offset} + id * {step_us} + ((id * 7919) % {jitter_ms}) * 1000) "
                    "AS rowtime",
                )
                .write.parquet(str(tmp))
            )
            (part,) = tmp.glob("part-*.parquet")
            shutil.move(str(part), target / f"{f:05d}.parquet")
            shutil.rmtree(tmp)
        write_flush_file(spark, target, files * per_file, flush_us)
        log(f"  wrote {files} files x {per_file:,} rows and a flush row to {target}")


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


def floor_query(spark: Any, folder: Path, args: argparse.Namespace) -> Any:
    """Spark's floor: what every micro-batch query over these inputs pays before any join. The same
    two inputs, read the same way, with the same watermarks, unioned and shuffled by the join key
    into the sink: file listing, offset and commit logs, planning, scans, the shuffle, no state."""
    delay_ms = int(args.lateness) * 1000 + 1
    a = _stream(spark, folder, "l").withWatermark("rowtime", f"{delay_ms} milliseconds")
    b = _stream(spark, folder, "r").withWatermark("rowtime", f"{delay_ms} milliseconds")
    return a.unionByName(b).repartition("k")


QUERIES = {"overjoin": overjoin_query, "native": native_query, "floor": floor_query}


def run_once(spark: Any, engine: str, folder: Path, args: argparse.Namespace, label: str) -> Run:
    spark.conf.set("spark.overjoin.lateness", f"{args.lateness} seconds")
    spark.conf.set("spark.overjoin.join.operator", "overjoin" if engine == "overjoin" else "spark")
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", STORES[args.store][0])
    spark.conf.set("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true")
    return run_to_end(spark, QUERIES[engine](spark, folder, args), engine, label)


def run_flink(flink: FlinkEngine) -> Run:
    """One run of bench/flink_join.py; its CPU seconds are its gateway JVM's over the job."""
    o = flink.run()
    return Run(
        engine="flink",
        input_rows=o["input_rows"],
        cpu_seconds=o["cpu_seconds"],
        wall_seconds=o["wall_seconds"],
        batches=None,
        output_rows=o["output_rows"],
        peak_state_rows=None,
    )


def report(args: argparse.Namespace, runs: list[Run], command: str, versions: str, flink_note: str) -> str:
    engines = list(dict.fromkeys(r.engine for r in runs))
    by = {e: [r for r in runs if r.engine == e] for e in engines}
    med = {e: statistics.median(r.rows_per_cpu_second for r in rs) for e, rs in by.items()}
    lines = [
        f"Command: `{command}`  ",
        f"Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}  ",
        f"Software: {versions}",
        "",
        f"Input: {args.rows:,} rows per input, {args.files} Parquet files per input (one per input per "
        f"micro-batch, `Trigger.AvailableNow`, `noop` sink), {args.keys:,} keys, {1_000_000 // args.step_us:,} rows/s "
        f"of event time per input, rows out of order by up to 3 s, then one flush row per input in a file of its "
        f"own (an hour past the last window, a key of its own; counted in input and output rows); "
        f"`a {args.how.upper()} JOIN b` with a {args.window} s RANGE window on `b`, lateness {args.lateness} s; "
        f"Spark: `local[2]`, 2 shuffle partitions, {STORES[args.store][1]}.",
        "",
        "Measure: input rows per CPU-second of the engine's JVM (utime + stime from /proc, from the query's "
        "start to its end; Spark's session and Flink's JVM and MiniCluster are started once, before the "
        "warm-ups). Engines alternate run by run after one unreported warm-up of each.",
        "",
        *run_table(runs),
    ]
    joins = [r for r in runs if r.engine != "floor"]
    same = len({r.output_rows for r in joins}) == 1
    medians = ", ".join(f"{e} **{m:,.0f}**" for e, m in med.items())
    ratios = []
    for other in ("native", "flink"):
        if other in med:
            pairs = [x.rows_per_cpu_second / y.rows_per_cpu_second for x, y in zip(by["overjoin"], by[other])]
            ratios.append(
                f"overjoin / {other} **{med['overjoin'] / med[other]:.2f}x** (per run: "
                + ", ".join(f"{p:.2f}" for p in pairs)
                + ")"
            )
    lines += [
        "",
        f"Median input rows per CPU-second: {medians}. Ratios of the medians: " + "; ".join(ratios) + ".",
        "",
        (
            f"Output rows equal in every run of a join ({joins[0].output_rows:,})."
            if same
            else "**Output rows differ between runs** (see the table): the comparison is not of equal work."
        ),
        "",
    ]
    if "floor" in by:
        cpu = {e: statistics.median(r.cpu_seconds for r in rs) for e, rs in by.items()}
        over = ", ".join(f"{e} {cpu[e] - cpu['floor']:.1f}" for e in ("overjoin", "native") if e in cpu)
        flink_total = f"; Flink's whole run: {cpu['flink']:.1f} CPU s" if "flink" in cpu else ""
        lines += [
            "Spark's floor (`floor`, not a join: the same micro-batches read, watermarked and shuffled by key "
            "into the sink, with no state; its output is its input): median "
            f"{cpu['floor']:.1f} CPU s. Every Spark micro-batch query over these inputs pays it. "
            f"The join's own CPU s over the floor (medians): {over}{flink_total}.",
            "",
        ]
    lines += [
        "Flink: " + flink_note,
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
    p.add_argument(
        "--store",
        choices=tuple(STORES),
        default="hdfs",
        help="Spark's state store for both Spark engines (default hdfs, Spark's default; rocksdb: with "
        "changelog checkpointing)",
    )
    p.add_argument("--runs", type=int, default=3, help="runs of each engine, alternating (default 3)")
    p.add_argument(
        "--flink-python",
        metavar="PATH",
        default=None,
        help="a Python with apache-flink 2.3 to run the flink engine (default: $OVERJOIN_FLINK_PYTHON, "
        "else this Python if it has pyflink, else flink is not run)",
    )
    p.add_argument("--no-write", action="store_true", help="print the report, leave RESULTS.md alone")
    args = p.parse_args(argv)
    command = "python bench/bench_operators.py" + "".join(
        " " + shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )

    import overjoin

    spark = start_session()
    versions = (
        f"Spark {spark.version}, Java {spark._jvm.System.getProperty('java.version')}, "
        f"Python {platform.python_version()}, overjoin {overjoin.__version__}"
    )
    flink_python, flink_note = find_flink_python(args.flink_python)
    flink_note = f"not run: {flink_note}." if flink_python is None else ""
    folder = Path(tempfile.mkdtemp(prefix="bench-ops-data-"))
    runs: list[Run] = []
    flink: FlinkEngine | None = None
    try:
        log(f"generating input in {folder} ...")
        flush_us = T0_US + args.rows * args.step_us + (args.window + args.lateness + 3600) * 1_000_000
        generate(spark, folder, args.rows, args.files, args.keys, args.step_us, 3000, flush_us)
        engines = ["overjoin", "native", "floor"]
        if flink_python:
            log(f"writing Flink's CSV input (checked against the Parquet files) and starting {flink_python} ...")
            inputs = write_flink_inputs(spark, folder, SCHEMA)
            flink = FlinkEngine(
                flink_python,
                FLINK_JOIN,
                [
                    *("--left", str(inputs["l"]), "--right", str(inputs["r"])),
                    *("--window", str(args.window), "--lateness", str(args.lateness), "--how", args.how),
                ],
            )
            sampled = flink.check_sample(spark, folder, SCHEMA, 997)
            log(f"  Flink {flink.version} reads the same {sampled:,} sampled rows as Spark")
            versions += f", Flink {flink.version}"
            engines.append("flink")
        for engine in engines:
            log(f"  warm-up {engine} (not reported) ...")
            if engine == "flink" and flink:
                run_flink(flink)
            else:
                run_once(spark, engine, folder, args, f"warm-up {engine}")
        for i, engine in enumerate(engines * args.runs, 1):
            label = f"run {i}/{len(engines) * args.runs} {engine}"
            r = run_flink(flink) if engine == "flink" and flink else run_once(spark, engine, folder, args, label)
            log(
                f"  {label}: {r.input_rows:,} rows, {r.cpu_seconds:.1f} CPU s ({r.wall_seconds:.1f} s wall) = "
                f"{r.rows_per_cpu_second:,.0f} rows/CPU s, {r.output_rows:,} out, peak state {fmt_n(r.peak_state_rows)}"
            )
            runs.append(r)
        if flink:
            flink_note = (
                f"ran Flink {flink.version} (`bench/flink_join.py` under `{flink_python}`): streaming mode, a local "
                "MiniCluster (1 task manager, 2 slots, parallelism 2) in pyflink's gateway JVM (-Xmx4g, as Spark's "
                "driver), state backend `hashmap` (heap), checkpointing off (Flink's default; Spark commits its "
                "state store every micro-batch), everything else default. It reads one CSV file per input (the "
                "same rows; the wheel ships no Parquet format) with the `filesystem` connector, watermarks "
                f"`rt - INTERVAL '{args.lateness}' SECOND`, and writes to a sink that counts rows "
                "(bench/flink/CountingSinkFactory.java). `rowtime` is TIMESTAMP(6); the interval join's time "
                "attribute `rt` is it cast to TIMESTAMP(3) (Flink's limit), and the exact microsecond bounds are "
                "the join's remaining condition. CPU: its JVM's utime + stime from just before the INSERT is "
                "submitted to the job's end (planning, submission and scheduling included; JVM and MiniCluster "
                "start-up not). Peak state rows: n/a, the hashmap state backend exposes no count of its rows."
            )
    finally:
        if flink:
            flink.close()
        shutil.rmtree(folder, ignore_errors=True)
    text = report(args, runs, command, versions, flink_note)
    print(text)
    if not args.no_write:
        replace_section(SECTION, text)
        log(f"wrote the '{SECTION}' section of bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
