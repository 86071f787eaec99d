"""Sliding windows side by side: overjoin's operator against Flink's OVER aggregation.

The same sliding window (docs/semantics.md §12), on the same rows, through each engine:

  overjoin  SELECT STREAM ROWTIME, id, k, COUNT(*) OVER w AS c, SUM(v) OVER w AS s,
                   MIN(v) OVER w AS mn, MAX(v) OVER w AS mx, AVG(v) OVER w AS a
            FROM src WINDOW w AS (PARTITION BY k RANGE INTERVAL '<W>' SECOND PRECEDING)
            on overjoin's SlidingWindowExec (lateness <L>)
  overjoin-due  (optional, --engines) the same operator aggregating each emitted row's frame in
            order (spark.overjoin.sliding.evaluation = due), as before frames were incremental
  overjoin-spark  (optional, --engines) the same operator with Spark's window evaluation over every
            held row of a visited key (spark.overjoin.sliding.evaluation = spark), as it was first
  floor     no window: the same input, watermark and micro-batches, shuffled by the key into the
            sink; what every Spark micro-batch query over this input pays (reported, and
            subtracted to give the operator's own cost)
  flink     the same aggregation in Flink 2.3 (bench/flink_over.py): ``OVER (PARTITION BY k ORDER
            BY rt RANGE BETWEEN INTERVAL '<W>' SECOND PRECEDING AND CURRENT ROW)``, streaming mode,
            a local MiniCluster with parallelism 2, hashmap state, checkpointing off; with
            --flink-checkpoints also ``flink-ckpt``: checkpoints about as many as Spark's commits
            (exactly-once, to local files; bench/_flink.py)

Spark has no native engine here: it refuses a window function over a stream (its streaming
``OVER`` is unsupported), which is why overjoin has an operator for it.

One input of Parquet files (id, k, v, rowtime), one file per micro-batch (``Trigger.AvailableNow``,
``noop`` sink), made as bench/bench_operators.py makes its inputs: event time advances ``step`` per
row, rows are out of order by up to 3 s (a deterministic jitter, whole milliseconds, so Flink's
millisecond time attribute loses nothing; rows with equal rowtime are peers in both engines, see
below), keys and values are hashed from the id. The input ends with one **flush row** in a file of
its own, an hour later, with a key of its own: it moves the watermark past every other row, so
overjoin emits them all before ``Trigger.AvailableNow`` stops (Flink does at the end of its bounded
input). No engine emits the flush row's own output row (every engine filters its key out; overjoin
could not emit it anyway, as no later row moves the watermark past it), so every engine outputs
exactly one row per data row, which is checked.

The benchmark runs at two sizes of micro-batch, ``--batch-seconds`` of event time each (default 10
and 50: 100 and 20 files of the default 1M rows). Flink has no micro-batches: it reads the same rows
from one CSV file, so its runs are the same job at both sizes, run again side by side in each.

**Check of the values** (before the timed runs; not timed): overjoin's output at each size is
written to Parquet and a checksum of its rows (a hash of each row's values, summed; see
bench/flink/CountingSinkFactory.java) compared with Flink's (its counting sink with ``'checksum' =
'true'``) and with Spark's own batch window over the same rows (``RANGE BETWEEN INTERVAL W SECONDS
PRECEDING AND CURRENT ROW`` ordered by rowtime, overjoin's parser off). RANGE includes peers (rows
with an equal rowtime) in all three (docs/semantics.md §12), so ties in rowtime give the same
values.

The measure, as bench/bench_operators.py's: **input rows per CPU-second** of the engine's JVM
(utime + stime from /proc), engines alternating run by run after one unreported warm-up of each (``--warmups``),
medians of the runs; peak state rows of overjoin from the query's progress (``numRowsTotal``: input
rows held, not keys) and its state on disk (bytes of the checkpoint's ``state`` folder at the end);
Flink's hashmap state exposes no count.

Flink needs its own venv (see bench/bench_operators.py):

  python3 -m venv /work/flinkenv && /work/flinkenv/bin/pip install 'apache-flink==2.3.*'
  python bench/bench_sliding.py --flink-python /work/flinkenv/bin/python

Run:  python bench/bench_sliding.py                  (1M rows; about 15 minutes on 2 cores)
      python bench/bench_sliding.py --rows 100000    (a quick look)
      python bench/bench_sliding.py --help
Writes the section ``## Sliding windows`` of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _flink import (
    FLINK_OVER,
    FLUSH_KEY,
    FlinkEngine,
    checkpoint_line,
    engine_note,
    find_flink_python,
    flink_options,
    run_size,
    write_flink_inputs,
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
    versions,
)
from bench_operators import T0_US, generate

SECTION = "Sliding windows"
SCHEMA = "id BIGINT, k INT, v INT, rowtime TIMESTAMP"
JITTER_MS = 3000
VALUES = 1000  # v is in [0, VALUES)
# The output's columns, in the order the checksum reads them (flink_over.py's sink has the same).
OUT = ("ROWTIME", "id", "k", "c", "s", "mn", "mx", "a")
MASK = (1 << 64) - 1
NULL_BITS = 0x5BD1E995  # CountingSinkFactory.NULL_BITS


def _stream(spark: Any, folder: Path) -> Any:
    return spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(folder / "src"))


def overjoin_query(spark: Any, folder: Path, args: argparse.Namespace) -> Any:
    _stream(spark, folder).createOrReplaceTempView("src")
    return spark.sql(
        "SELECT STREAM ROWTIME, id, k, COUNT(*) OVER w AS c, SUM(v) OVER w AS s, MIN(v) OVER w AS mn, "
        "MAX(v) OVER w AS mx, AVG(v) OVER w AS a "
        f"FROM src WINDOW w AS (PARTITION BY k RANGE INTERVAL '{args.window}' SECOND PRECEDING)"
    ).where(f"k <> {FLUSH_KEY}")


def floor_query(spark: Any, folder: Path, args: argparse.Namespace) -> Any:
    """Spark's floor: the same input, read the same way, with the same watermark (overjoin's
    lateness + 1 ms, docs/semantics.md §8), shuffled by the key into the sink, the flush row
    filtered out: file listing, offset and commit logs, planning, the scan, the shuffle, no state."""
    delay_ms = int(args.lateness) * 1000 + 1
    return (
        _stream(spark, folder)
        .withWatermark("rowtime", f"{delay_ms} milliseconds")
        .repartition("k")
        .where(f"k <> {FLUSH_KEY}")
    )


# overjoin-due and overjoin-spark: overjoin's operator with an earlier evaluation of the window's values
# (spark.overjoin.sliding.evaluation): each emitted row's frame in order, or Spark's window evaluation
# over every held row of a visited key (as before the due rows were evaluated alone).
QUERIES = {
    "overjoin": overjoin_query,
    "overjoin-due": overjoin_query,
    "overjoin-spark": overjoin_query,
    "floor": floor_query,
}
EVALUATIONS = {"overjoin-due": "due", "overjoin-spark": "spark"}


def configure(spark: Any, args: argparse.Namespace, engine: str = "overjoin") -> None:
    spark.conf.set("spark.overjoin.lateness", f"{args.lateness} seconds")
    spark.conf.set("spark.overjoin.sliding.evaluation", EVALUATIONS.get(engine, "incremental"))
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", STORES[args.store][0])
    spark.conf.set("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true")
    set_checkpoints(spark, args.checkpoints)


def run_spark(spark: Any, engine: str, folder: Path, args: argparse.Namespace, label: str) -> Run:
    configure(spark, args, engine)
    return run_to_end(spark, QUERIES[engine](spark, folder, args), engine, label)


# -- the check of the values ----------------------------------------------------------------------


def _bits(x: Any) -> int:
    if x is None:
        return NULL_BITS
    if isinstance(x, float):
        return int(struct.unpack("<Q", struct.pack("<d", x))[0])
    return int(x) & MASK


def _mix(h: int) -> int:
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    return h ^ (h >> 33)


def checksum(rows: Any) -> tuple[int, int]:
    """(rows, checksum) of rows of OUT's values, the ROWTIME in microseconds since the epoch, as
    CountingSinkFactory computes it (a signed 64-bit sum)."""
    n, total = 0, 0
    for r in rows:
        h = 17
        for x in r:
            h = (31 * h + _bits(x)) & MASK
        total = (total + _mix(h)) & MASK
        n += 1
    return n, total - (1 << 64) if total >= 1 << 63 else total


def spark_checksum(df: Any) -> tuple[int, int]:
    cols = [f"unix_micros({OUT[0]})", *OUT[1:]]
    return checksum(df.selectExpr(*cols).toLocalIterator())


def overjoin_checksum(spark: Any, folder: Path, args: argparse.Namespace) -> tuple[Run, tuple[int, int]]:
    """overjoin's output written to Parquet (not timed as the runs are) and its checksum."""
    configure(spark, args)
    out = Path(tempfile.mkdtemp(prefix="bench-sliding-out-"))
    try:
        run = run_to_end(spark, overjoin_query(spark, folder, args), "overjoin", "check", "parquet", str(out / "rows"))
        return run, spark_checksum(spark.read.parquet(str(out / "rows")))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def replay_checksum(spark: Any, folder: Path, args: argparse.Namespace) -> tuple[int, int]:
    """Spark's own batch window over the same rows (overjoin's parser off): the reference."""
    spark.read.schema(SCHEMA).parquet(str(folder / "src")).where(f"k <> {FLUSH_KEY}").createOrReplaceTempView(
        "replay_src"
    )
    w = f"(PARTITION BY k ORDER BY rowtime RANGE BETWEEN INTERVAL '{args.window}' SECOND PRECEDING AND CURRENT ROW)"
    spark.conf.set("spark.overjoin.parser.enabled", "false")
    try:
        df = spark.sql(
            f"SELECT rowtime AS ROWTIME, id, k, COUNT(*) OVER {w} AS c, SUM(v) OVER {w} AS s, MIN(v) OVER {w} AS mn, "
            f"MAX(v) OVER {w} AS mx, AVG(v) OVER {w} AS a FROM replay_src"
        )
        return spark_checksum(df)
    finally:
        spark.conf.unset("spark.overjoin.parser.enabled")


# -- one size of micro-batch ------------------------------------------------------------------------


@dataclass
class SlidingSize(Size):
    """The runs at one size of micro-batch, and the check of the values at it."""

    checks: dict[str, tuple[int, int]] = field(default_factory=dict)  # engine -> (rows, checksum)
    check_late_rows: int = 0


# overjoin / Flink targets by seconds of event time per micro-batch (issue 22).
TARGETS: dict[float, float] = {10: 1.0, 50: 2.0}


def report_size(size: SlidingSize, args: argparse.Namespace, target: float | None) -> list[str]:
    med = size.medians()
    lines = [
        f"### {size.seconds} s of event time per micro-batch ({size.files} files, "
        f"{args.rows // size.files:,} rows per micro-batch)",
        "",
        *run_table(size.runs),
        "",
        "Median input rows per CPU-second: " + ", ".join(f"{e} **{m:,.0f}**" for e, m in med.items()) + ".",
    ]
    for other in ("flink", "flink-ckpt", "overjoin-due", "overjoin-spark"):
        if other in med:
            ratio, pairs = size.ratio(other)
            verdict = "meets" if target is not None and ratio >= target else "**misses**"
            lines[-1] += (
                f" overjoin / {other} **{ratio:.2f}x** (per run: {', '.join(f'{p:.2f}' for p in pairs)})"
                + (f"; target >= {target:g}x: {verdict} it" if other == "flink" and target is not None else "")
                + "."
            )
    outs = {r.output_rows for r in size.runs}
    lines += [
        "",
        (
            f"Output rows: {args.rows:,} (one per data row) in every run of every engine."
            if outs == {args.rows}
            else f"**Output rows differ from the {args.rows:,} data rows** in some run (see the table)."
        ),
    ]
    ours = [r for r in size.runs if r.engine == "overjoin"]
    if ours:
        late = sum(r.late_rows or 0 for r in ours)
        peak = max(r.peak_state_rows or 0 for r in ours)
        lines.append(
            f"overjoin's peak state rows: {peak:,} (input rows held; numRowsTotal); late rows dropped: {late}."
        )
    if "floor" in med and "overjoin" in med:
        cpu_floor, cpu_ours = size.median_cpu("floor"), size.median_cpu("overjoin")
        flink_cpu = f"; Flink's whole run: {size.median_cpu('flink'):.1f} CPU s" if "flink" in med else ""
        before = "".join(
            f", {label} ({e}) {size.median_cpu(e) - cpu_floor:.1f}"
            for e, label in (("overjoin-due", "frames in order"), ("overjoin-spark", "with Spark's evaluation"))
            if e in med
        )
        lines.append(
            f"Spark's floor: {cpu_floor:.1f} CPU s (median); the sliding window's own CPU s over it: "
            f"{cpu_ours - cpu_floor:.1f} (overjoin's whole run {cpu_ours:.1f}){before}{flink_cpu}."
        )
    lines += checkpoint_line(size)
    if size.checks:
        sums = size.checks
        same = len(set(sums.values())) == 1
        lines += [
            "",
            "Check of the values: "
            + "; ".join(f"{e} {n:,} rows, checksum {c & MASK:#018x}" for e, (n, c) in sums.items())
            + (": **equal**." if same else ": **they differ**."),
        ]
    lines.append("")
    return lines


def report(
    args: argparse.Namespace, sizes: list[SlidingSize], command: str, software: str, flink_note: str, checked: bool
) -> str:
    lines = [
        *report_head(command, software),
        f"Query: `SELECT STREAM ROWTIME, id, k, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w, MAX(v) OVER w, "
        f"AVG(v) OVER w FROM src WINDOW w AS (PARTITION BY k RANGE INTERVAL '{args.window}' SECOND PRECEDING)`; "
        f"Flink: the same aggregates `OVER (PARTITION BY k ORDER BY rt RANGE BETWEEN INTERVAL '{args.window}' "
        "SECOND PRECEDING AND CURRENT ROW)`. Spark has no native engine for it: it refuses window functions "
        "over a stream.",
        "",
        f"Input: {args.rows:,} rows, {args.keys:,} keys, {1_000_000 // args.step_us:,} rows/s of event time "
        f"(about {args.window * 1_000_000 // args.step_us // args.keys:,} rows per key per window), v in "
        f"[0, {VALUES}), rows out of order by up to 3 s, then one flush row in a file of its own (an hour later, "
        "a key of its own; counted in input rows, its output filtered out by every engine); Parquet files, one per "
        f"micro-batch (`Trigger.AvailableNow`, `noop` sink); lateness {args.lateness} s; Spark: `local[2]`, "
        f"2 shuffle partitions, {STORES[args.store][1]}, {CHECKPOINTS[args.checkpoints][1]}.",
        "",
        f"{MEASURE} Engines alternate run by run after {args.warmups} unreported warm-up(s) of each; medians of "
        "the runs.",
        "",
    ]
    for size in sizes:
        # Issue 22's targets are for 10 s and 50 s of event time per micro-batch; other sizes have none.
        lines += report_size(size, args, TARGETS.get(size.seconds))
    summary = []
    for s in sizes:
        if "flink" in s.medians():
            summary.append(f"{s.seconds} s: **{s.ratio()[0]:.2f}x**")
    if summary:
        lines += [
            "overjoin / Flink (medians of input rows per CPU-second): " + ", ".join(summary) + " (targets: >= 1x at "
            "10 s, >= 2x at 50 s of event time per micro-batch).",
            "",
        ]
    if not checked:
        lines += ["Values not checked (--no-check).", ""]
    lines += ["Flink: " + flink_note, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rows", type=int, default=1_000_000, help="data rows (default 1000000)")
    p.add_argument("--keys", type=int, default=1_000, help="distinct PARTITION BY keys (default 1000)")
    p.add_argument("--step-us", type=int, default=1000, help="event time between rows, us (default 1000: 1k rows/s)")
    p.add_argument("--window", type=int, default=60, help="RANGE ... PRECEDING, seconds (default 60)")
    p.add_argument("--lateness", type=int, default=10, help="lateness, seconds (default 10)")
    p.add_argument(
        "--batch-seconds",
        default="10,50",
        help="event time per micro-batch, seconds, comma-separated (default 10,50); sets the files per run",
    )
    run_options(p, " per size")
    flink_options(p)
    p.add_argument(
        "--engines",
        default="overjoin,floor,flink",
        help="engines to run (default overjoin,floor,flink; overjoin-due: overjoin's operator aggregating "
        "each emitted row's frame in order, spark.overjoin.sliding.evaluation = due; overjoin-spark: overjoin's "
        "operator with Spark's window evaluation over every held row, spark.overjoin.sliding.evaluation = spark)",
    )
    p.add_argument("--no-check", action="store_true", help="skip the check of the values (not timed anyway)")
    args = p.parse_args(argv)
    if args.flink_checkpoints and args.warmups < 1:
        p.error("--flink-checkpoints needs --warmups >= 1 (the warm-ups set the checkpoint interval)")
    command = command_line("bench_sliding.py", argv)
    sizes = [SlidingSize(s, files) for s, files in batch_files(args.batch_seconds, args.rows, args.step_us)]
    wanted = args.engines.split(",")

    spark = start_session()
    software = versions(spark)
    flink_python, why = (None, "not asked for") if "flink" not in wanted else find_flink_python(args.flink_python)
    flink_note = f"not run: {why}." if flink_python is None else ""
    root = Path(tempfile.mkdtemp(prefix="bench-sliding-data-"))
    flinks: dict[str, FlinkEngine] = {}
    try:
        flush_us = T0_US + args.rows * args.step_us + (args.window + args.lateness + 3600) * 1_000_000
        folders = {}
        for size in sizes:
            folders[size.seconds] = root / f"b{size.seconds}"
            log(f"generating input for {size.seconds} s per micro-batch in {folders[size.seconds]} ...")
            generate(
                spark,
                folders[size.seconds],
                args.rows,
                size.files,
                args.keys,
                args.step_us,
                JITTER_MS,
                flush_us,
                sides=(("src", 0, 1),),
                extra=(f"CAST(pmod(hash(id, 3), {VALUES}) AS INT) AS v",),
            )
        flink_args: list[str] = []
        if flink_python:
            log(f"writing Flink's CSV input (checked against the Parquet files) and starting {flink_python} ...")
            inputs = write_flink_inputs(spark, folders[sizes[0].seconds], SCHEMA, ("src",))
            flink_args = ["--input", str(inputs["src"]), "--window", str(args.window), "--lateness", str(args.lateness)]
            flinks["flink"] = FlinkEngine(flink_python, FLINK_OVER, flink_args, insert="over")
            sampled = flinks["flink"].check_sample(
                spark, folders[sizes[0].seconds], SCHEMA, 997, ("src",), between=("v",)
            )
            log(f"  Flink {flinks['flink'].version} reads the same {sampled:,} sampled rows as Spark")
            software += f", Flink {flinks['flink'].version}"
        if not args.no_check:
            log("checking the values (not timed) ...")
            reference = replay_checksum(spark, folders[sizes[0].seconds], args)
            flink_check = flinks["flink"].run("check") if "flink" in flinks else None
            for size in sizes:
                size.checks["replay"] = reference
                run, sums = overjoin_checksum(spark, folders[size.seconds], args)
                size.checks["overjoin"] = sums
                size.check_late_rows = run.late_rows or 0
                if flink_check is not None:
                    size.checks["flink"] = (flink_check["output_rows"], flink_check["checksum"])
                log(f"  {size.seconds} s: {size.checks}")
        for size in sizes:
            engines = [e for e in ("overjoin", "overjoin-due", "overjoin-spark", "floor") if e in wanted]
            if "flink" in flinks:
                engines.append("flink")

            def spark_run(engine: str, label: str, folder: Path = folders[size.seconds]) -> Run:
                return run_spark(spark, engine, folder, args, label)

            run_size(size, engines, spark_run, flinks.get("flink"), args.warmups, args.runs, args.flink_checkpoints)
        if flink_python and "flink" in flinks:
            flink_note = engine_note(
                flinks["flink"].version,
                FLINK_OVER,
                flink_python,
                "It reads one CSV file (the same rows; the wheel ships no Parquet format) with the `filesystem` "
                f"connector, watermark `rt - INTERVAL '{args.lateness}' SECOND` where `rt` is `rowtime` as "
                "TIMESTAMP(3) (the rowtimes are whole milliseconds).",
                args.flink_checkpoints,
            )
    finally:
        for process in flinks.values():
            process.close()
        shutil.rmtree(root, ignore_errors=True)
    text = report(args, sizes, command, software, flink_note, not args.no_check)
    print(text)
    if not args.no_write:
        replace_section(SECTION, text)
        log(f"wrote the '{SECTION}' section of bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
