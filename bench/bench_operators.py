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
            MiniCluster with parallelism 2, hashmap state, checkpointing off, Flink's default), when a
            Python with ``apache-flink`` is given (--flink-python, or $OVERJOIN_FLINK_PYTHON);
            reported as not run otherwise
  flink-ckpt  with --flink-checkpoints: the same Flink job with checkpointing on, since every Spark
            micro-batch commits its state: exactly-once, hashmap state, checkpoints to local files
            under a temporary folder, at an interval of Flink's warm-up wall time over overjoin's
            micro-batches in its warm-up (about 100 ms; about as many checkpoints as Spark's commits),
            set for each size of micro-batch; completed checkpoints reported per run (bench/_flink.py)

The Spark queries read two folders of Parquet files (id, k, rowtime), one file per input per
micro-batch (``Trigger.AvailableNow``), into the ``noop`` sink. Rows arrive out of order within
the lateness (a deterministic jitter of up to 3 s). Each input ends with one **flush row**, in a
file of its own: both at one rowtime an hour past every window, with a key of their own, so they
meet each other (one output row) and nothing else, and they move the watermark past every other
row: the Spark engines then pad every unmatched row of a LEFT join before they stop, as Flink does
at the end of its bounded input. The flush rows are part of the data set (input and output rows)
for every engine. Flink reads the same rows from one CSV file per input (its wheel ships no
Parquet format), written from the Parquet files and checked against them.

**Shapes** (``--shape``; any option given overrides the shape's value):

  default   1,000,000 rows per input, a LEFT join, 100 files per input (10 s of event time per
            micro-batch), 10,000 keys, 1,000 rows/s of event time per input, a 60 s window,
            lateness 10 s: the data set of the first runs
  issue25   issue 25's: 2,000,000 rows per input, an INNER join, 10,000 keys, 1,000 rows/s of event
            time per input, a one-minute window, lateness 10 s, at 10 s and 50 s of event time per
            micro-batch (``--batch-seconds 10,50``: 200 and 40 files per input), each size with its
            own runs of every engine; Flink has no micro-batches and runs the same job at each size

Spark runs ``local[2]`` with 2 shuffle partitions. Engines alternate run by run after ``--warmups``
unreported warm-ups of each (default 1), at each size. The measure is **input rows per CPU-second
of the process** (utime + stime of the JVM, from /proc: local mode runs Spark's driver and
executors in one process, and Flink's MiniCluster runs in pyflink's gateway JVM), not wall time,
because this machine is shared. Each run also reports output rows (which must be equal across the
join engines, Flink's included: the report says whether they are), peak state rows (not exposed by
Flink's hashmap state backend), Spark's state on disk (bytes of the checkpoint's ``state`` folder
when the query has ended: every version the store keeps) and Flink's completed checkpoints.

Flink needs its own venv: ``apache-flink`` 2.3 (through apache-beam) requires pyarrow < 17 and
grpcio < 1.66, and overjoin's ``test`` and ``server`` extras (``pyspark[connect]``) require
pyarrow >= 18 and grpcio >= 1.76, so pip cannot install both; it also needs a JDK's ``javac``
(bench/flink_join.py compiles a counting sink):

  python3 -m venv /work/flinkenv && /work/flinkenv/bin/pip install 'apache-flink==2.3.*'
  python bench/bench_operators.py --flink-python /work/flinkenv/bin/python

Run:  python bench/bench_operators.py                 (1M rows per input; 10-20 minutes on 2 cores)
      python bench/bench_operators.py --rows 200000   (a quick look)
      python bench/bench_operators.py --shape issue25 --flink-checkpoints --flink-python /work/flinkenv/bin/python
      python bench/bench_operators.py --help
Writes the section ``## Join operators`` of bench/RESULTS.md (``--shape issue25``: ``## Join operators,
issue 25's data set``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _flink import (
    FLINK_JOIN,
    FlinkEngine,
    checkpoint_line,
    engine_note,
    find_flink_python,
    flink_options,
    run_size,
    write_flink_inputs,
    write_flush_file,
)
from _results import replace_section
from _spark_bench import (
    CHECKPOINTS,
    MEASURE,
    STORES,
    Run,
    Size,
    batch_files,
    command_line,
    log,
    report_head,
    run_options,
    run_table,
    run_to_end,
    set_checkpoints,
    start_session,
    thread_table,
    versions,
)

# The section of bench/RESULTS.md each --shape writes.
SECTIONS = {"default": "Join operators", "issue25": "Join operators, issue 25's data set"}
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
    set_checkpoints(spark, args.checkpoints)
    return run_to_end(spark, QUERIES[engine](spark, folder, args), engine, label)


# --shape: the data set and join, each value unless its option is given. ``files`` or
# ``batch_seconds`` (event time per micro-batch, one size per value) set the micro-batches.
SHAPES: dict[str, dict[str, Any]] = {
    # The data set of the first runs (bench/RESULTS.md, "Join operators"): 100 micro-batches of 10 s.
    "default": {
        "rows": 1_000_000,
        "keys": 10_000,
        "step_us": 1000,
        "window": 60,
        "lateness": 10,
        "how": "left",
        "files": 100,
    },
    # Issue 25's: an inner join of 2M rows per input at 10 s and 50 s of event time per micro-batch.
    "issue25": {
        "rows": 2_000_000,
        "keys": 10_000,
        "step_us": 1000,
        "window": 60,
        "lateness": 10,
        "how": "inner",
        "batch_seconds": "10,50",
    },
}
ENGINES = ("overjoin", "native", "floor", "flink")
JOINS = ("overjoin", "native", "flink", "flink-ckpt")  # the engines that join: equal output rows


def sizes_of(args: argparse.Namespace) -> list[Size]:
    """The sizes of micro-batch to run: each of --batch-seconds, or the one of --files."""
    if args.batch_seconds:
        return [Size(s, files) for s, files in batch_files(args.batch_seconds, args.rows, args.step_us)]
    return [Size(args.rows * args.step_us / (args.files * 1_000_000), args.files)]


def output_check(size: Size) -> str:
    """Whether every run of every join engine at ``size`` output the same rows, Flink's as Spark's."""
    outs = {e: sorted({r.output_rows for r in size.runs if r.engine == e}) for e in JOINS}
    outs = {e: o for e, o in outs.items() if o}
    every = {n for o in outs.values() for n in o}
    if not every:
        return "No join engine ran."
    if len(every) == 1:
        (n,) = every
        both = {"overjoin", "native"} & outs.keys() and {"flink", "flink-ckpt"} & outs.keys()
        flink = " Flink's output rows equal Spark's." if both else ""
        return f"Output rows equal in every run of every join engine ({', '.join(outs)}): {n:,}.{flink}"
    return (
        "**Output rows differ between runs or engines**: "
        + "; ".join(f"{e} {', '.join(f'{n:,}' for n in o)}" for e, o in outs.items())
        + " (see the table): the comparison is not of equal work."
    )


def report_size(size: Size, args: argparse.Namespace) -> list[str]:
    med = size.medians()
    per_batch = args.rows // size.files
    lines = [
        f"### {size.seconds:g} s of event time per micro-batch ({size.files} files per input, {per_batch:,} rows "
        "per input per micro-batch)",
        "",
        *run_table(size.runs),
        "",
        "Median input rows per CPU-second: " + ", ".join(f"{e} **{m:,.0f}**" for e, m in med.items()) + ".",
    ]
    ratios = []
    if "overjoin" in med:
        for other in ("native", "flink", "flink-ckpt"):
            if other in med:
                ratio, pairs = size.ratio(other)
                ratios.append(f"overjoin / {other} **{ratio:.2f}x** (per run: {', '.join(f'{p:.2f}' for p in pairs)})")
    if ratios:
        lines[-1] += " Ratios of the medians: " + "; ".join(ratios) + "."
    threads = thread_table(size.runs)
    if threads:
        say = (
            "Each Spark run's CPU seconds by kind of JVM thread (/proc/<pid>/task, read before and after the run; "
            "the query's micro-batch thread has ended by then, its CPU is among the threads that ended):"
        )
        lines += ["", say, "", *threads]
    lines += ["", output_check(size)]
    spark = [e for e in ("overjoin", "native") if e in med]
    if spark:
        lines.append(
            "State: "
            + "; ".join(
                f"{e} peak {max(r.peak_state_rows or 0 for r in size.runs if r.engine == e):,} rows (numRowsTotal), "
                f"{statistics.median(r.state_bytes or 0 for r in size.runs if r.engine == e):,.0f} bytes on disk "
                "(median)"
                for e in spark
            )
            + ". On disk: the checkpoint's `state` folder when the query has ended, every version the store keeps "
            "(Spark keeps the last 100 micro-batches' deltas and snapshots, `spark.sql.streaming.minBatchesToRetain`)."
        )
    if "floor" in med:
        cpu_floor = size.median_cpu("floor")
        over = ", ".join(f"{e} {size.median_cpu(e) - cpu_floor:.1f}" for e in spark)
        flink = "".join(
            f"; Flink's whole run ({e}): {size.median_cpu(e):.1f}" for e in ("flink", "flink-ckpt") if e in med
        )
        lines.append(
            "Spark's floor (`floor`, not a join: the same micro-batches read, watermarked and shuffled by key "
            f"into the sink, with no state; its output is its input): median {cpu_floor:.1f} CPU s. "
            f"The join's own CPU s over the floor (medians): {over or 'n/a'}{flink}."
        )
    lines += checkpoint_line(size)
    lines.append("")
    return lines


def report(args: argparse.Namespace, sizes: list[Size], command: str, software: str, flink_note: str) -> str:
    lines = [
        *report_head(command, software),
        f"Input (shape `{args.shape}`): {args.rows:,} rows per input, one Parquet file per input per micro-batch "
        f"(`Trigger.AvailableNow`, `noop` sink), {args.keys:,} keys, {1_000_000 // args.step_us:,} rows/s of event "
        "time per input, rows out of order by up to 3 s, then one flush row per input in a file of its own (an hour "
        "past the last window, a key of its own; counted in input and output rows); "
        f"`a {args.how.upper()} JOIN b` with a {args.window} s RANGE window on `b`, lateness {args.lateness} s; "
        f"Spark: `local[2]`, 2 shuffle partitions, {STORES[args.store][1]}, {CHECKPOINTS[args.checkpoints][1]}.",
        "",
        f"{MEASURE} Engines alternate run by run after {args.warmups} unreported warm-up(s) of each, at each size; "
        "medians of the runs. Flink has no micro-batches: it reads the same rows from one CSV file per input, so "
        "its runs are the same job at every size, run again side by side at each.",
        "",
    ]
    for size in sizes:
        lines += report_size(size, args)
    summary = [
        f"{s.seconds:g} s: "
        + ", ".join(f"{e} **{s.ratio(e)[0]:.2f}x**" for e in ("flink", "flink-ckpt") if e in s.medians())
        for s in sizes
        if "overjoin" in s.medians() and "flink" in s.medians()
    ]
    if summary:
        lines += ["overjoin / Flink (medians of input rows per CPU-second), per size: " + "; ".join(summary) + ".", ""]
    lines += ["Flink: " + flink_note, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--shape",
        choices=tuple(SHAPES),
        default="default",
        help="the data set and join (default: 1M rows per input, 100 files, LEFT join; issue25: 2M rows per "
        "input, INNER join, at 10 s and 50 s of event time per micro-batch); the options below override it",
    )
    p.add_argument("--rows", type=int, help="rows per input (default 1000000)")
    p.add_argument("--files", type=int, help="files (= micro-batches) per input, one size (default 100)")
    p.add_argument(
        "--batch-seconds",
        help="event time per micro-batch, seconds, comma-separated, one size each (issue25: 10,50); sets the files",
    )
    p.add_argument("--keys", type=int, help="distinct join keys (default 10000)")
    p.add_argument("--step-us", type=int, help="event time between rows, us (default 1000: 1k rows/s)")
    p.add_argument("--window", type=int, help="RANGE window on the right input, seconds (default 60)")
    p.add_argument("--lateness", type=int, help="lateness, seconds (default 10)")
    p.add_argument("--how", choices=("inner", "left"), help="join type (default left; issue25: inner)")
    p.add_argument(
        "--engines",
        default=",".join(ENGINES),
        help=f"engines to run (default {','.join(ENGINES)}; flink needs --flink-python; --flink-checkpoints "
        "adds flink-ckpt)",
    )
    run_options(p)
    p.add_argument("--section", help="the section of bench/RESULTS.md to write (default: the shape's)")
    flink_options(p)
    args = p.parse_args(argv)
    if args.files and args.batch_seconds:
        p.error("give --files or --batch-seconds, not both")
    shape = SHAPES[args.shape]
    if not args.files and not args.batch_seconds:
        args.files, args.batch_seconds = shape.get("files"), shape.get("batch_seconds")
    for name, value in shape.items():
        if name not in ("files", "batch_seconds") and getattr(args, name) is None:
            setattr(args, name, value)
    wanted = args.engines.split(",")
    if unknown := set(wanted) - set(ENGINES):
        p.error(f"unknown engines: {', '.join(sorted(unknown))} (known: {', '.join(ENGINES)})")
    if args.flink_checkpoints and (args.warmups < 1 or not {"overjoin", "flink"} <= set(wanted)):
        p.error("--flink-checkpoints needs --warmups >= 1 and the engines overjoin and flink (their warm-ups set the "
                "checkpoint interval)")  # fmt: skip
    sizes = sizes_of(args)
    if any(args.rows % size.files for size in sizes):
        p.error(f"--rows ({args.rows:,}) must be a multiple of the files per input at every size "
                f"({', '.join(str(s.files) for s in sizes)}): every size must hold the same rows")  # fmt: skip
    command = command_line("bench_operators.py", argv)

    spark = start_session()
    software = versions(spark)
    flink_python, why = (None, "not asked for") if "flink" not in wanted else find_flink_python(args.flink_python)
    flink_note = f"not run: {why}."
    root = Path(tempfile.mkdtemp(prefix="bench-ops-data-"))
    flink: FlinkEngine | None = None
    try:
        flush_us = T0_US + args.rows * args.step_us + (args.window + args.lateness + 3600) * 1_000_000
        folders = {}
        for size in sizes:
            folders[size.seconds] = root / f"b{size.files}"
            log(f"generating input for {size.seconds:g} s per micro-batch in {folders[size.seconds]} ...")
            generate(spark, folders[size.seconds], args.rows, size.files, args.keys, args.step_us, 3000, flush_us)
        if flink_python:
            log(f"writing Flink's CSV input (checked against the Parquet files) and starting {flink_python} ...")
            inputs = write_flink_inputs(spark, folders[sizes[0].seconds], SCHEMA)
            flink = FlinkEngine(
                flink_python,
                FLINK_JOIN,
                [
                    *("--left", str(inputs["l"]), "--right", str(inputs["r"])),
                    *("--window", str(args.window), "--lateness", str(args.lateness), "--how", args.how),
                ],
            )
            for size in sizes:  # the same rows at every size
                sampled = flink.check_sample(spark, folders[size.seconds], SCHEMA, 997)
                log(f"  Flink {flink.version} reads the same {sampled:,} sampled rows as Spark at {size.seconds:g} s")
            software += f", Flink {flink.version}"
        for size in sizes:
            engines = [e for e in ENGINES if e in wanted and (e != "flink" or flink)]

            def spark_run(engine: str, label: str, folder: Path = folders[size.seconds]) -> Run:
                return run_once(spark, engine, folder, args, label)

            run_size(size, engines, spark_run, flink, args.warmups, args.runs, args.flink_checkpoints)
        if flink:
            flink_note = engine_note(
                flink.version,
                FLINK_JOIN,
                str(flink_python),
                "It reads one CSV file per input (the same rows; the wheel ships no Parquet format) with the "
                f"`filesystem` connector, watermarks `rt - INTERVAL '{args.lateness}' SECOND`. `rowtime` is "
                "TIMESTAMP(6); the interval join's time attribute `rt` is it cast to TIMESTAMP(3) (Flink's limit), "
                "and the exact microsecond bounds are the join's remaining condition.",
                args.flink_checkpoints,
            )
    finally:
        if flink:
            flink.close()
        shutil.rmtree(root, ignore_errors=True)
    text = report(args, sizes, command, software, flink_note)
    print(text)
    if not args.no_write:
        section = args.section or SECTIONS[args.shape]
        replace_section(section, text)
        log(f"wrote the '{section}' section of bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
