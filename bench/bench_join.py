"""Stream-stream windowed join throughput: overjoin SQL against the same join written by hand.

The same join, on the same generated input, two ways, in one SparkSession:

  (a) overjoin:  SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id
                 FROM l OVER (RANGE INTERVAL '<W>' SECOND PRECEDING) AS a JOIN r AS b ON a.k = b.k
  (b) by hand:   the DataFrame API as a Spark user writes it: withWatermark on both inputs and an
                 interval condition in the join, with what overjoin generates made explicit: a
                 watermark delay of 1 ms (overjoin's lateness 0 + its 1 ms, see docs/semantics.md §8),
                 the interval ``a.t <= b.t AND b.t <= a.t + W`` and ROWTIME = greatest(a.t, b.t).

Both run on Spark's own join operator (``spark.overjoin.join.operator = spark``): this benchmark
measures what the rewrite costs; overjoin's own operator is compared with Spark's in
bench/bench_operators.py.

Input: two folders of Parquet files (``l`` and ``r``: id, k, rowtime), event time advancing at a
fixed rate, read as file streams one file per input per micro-batch (Trigger.AvailableNow), into
the ``noop`` sink. Runs alternate a, b, a, b, ... Reports input rows/s of each, the ratio a/b,
peak state rows (query progress ``stateOperators[*].numRowsTotal``) against the window content
(rate x window), both physical plans and a normalised diff of them, and writes the section
``## Stream join throughput`` of bench/RESULTS.md (other sections are kept).

Run:  python bench/bench_join.py            (about 4 minutes on 2 cores)
      python bench/bench_join.py --help
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import os
import platform
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTION = "## Stream join throughput"
T0_MS = 1_704_067_200_000  # 2024-01-01 00:00:00 UTC


@dataclass
class Run:
    """One run of one variant: what it read, how long it took, and its state."""

    variant: str
    rows: int
    seconds: float
    batches: int
    peak_state_rows: int
    output_rows: int

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Input


def generate(spark: Any, folder: Path, rows: int, files: int, step_ms: int, keys: int) -> None:
    """Write ``files`` Parquet files per input, each holding the next slice of event time.

    Left row i has rowtime T0 + i*step, right row i T0 + i*step + step/2; keys are spread so that
    each left row meets about window/step/keys right rows. Files are moved into the watched
    folders in time order, so the file source (oldest first) reads them in time order and no row
    is ever late.
    """
    per_file = rows // files
    for side, offset, key_expr in (("l", 0, f"id % {keys}"), ("r", step_ms // 2, f"(id * 7 + 3) % {keys}")):
        target = folder / side
        target.mkdir(parents=True)
        for f in range(files):
            tmp = folder / f"tmp-{side}-{f}"
            (
                spark.range(f * per_file, (f + 1) * per_file, numPartitions=1)
                .selectExpr(
                    "id",
                    f"CAST({key_expr} AS INT) AS k",
                    f"timestamp_millis({T0_MS + offset} + id * {step_ms}) AS rowtime",
                )
                .write.parquet(str(tmp))
            )
            (part,) = tmp.glob("part-*.parquet")
            shutil.move(str(part), target / f"{f:05d}.parquet")
            shutil.rmtree(tmp)
        log(f"  wrote {files} files x {per_file:,} rows to {target}")


# --------------------------------------------------------------------------------------------
# The two variants


def overjoin_query(spark: Any, folder: Path, window_s: int) -> Any:
    """(a): overjoin SQL over two streaming temp views (rowtime: the column named ``rowtime``)."""
    spark.conf.set("spark.overjoin.join.operator", "spark")
    for side in ("l", "r"):
        (
            spark.readStream.schema("id BIGINT, k INT, rowtime TIMESTAMP")
            .option("maxFilesPerTrigger", 1)
            .parquet(str(folder / side))
            .createOrReplaceTempView(side)
        )
    return spark.sql(
        "SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id "
        f"FROM l OVER (RANGE INTERVAL '{window_s}' SECOND PRECEDING) AS a JOIN r AS b ON a.k = b.k"
    )


def handwritten_query(spark: Any, folder: Path, window_s: int) -> Any:
    """(b): the same join with the DataFrame API, as equivalent to (a) as a user can make it."""
    from pyspark.sql import functions as F

    def side(source: str, alias: str) -> Any:
        return (
            spark.readStream.schema("id BIGINT, k INT, rowtime TIMESTAMP")
            .option("maxFilesPerTrigger", 1)
            .parquet(str(folder / source))
            # overjoin's lateness 0 becomes a 1 ms delay (docs/semantics.md §8): the same here.
            .withWatermark("rowtime", "1 millisecond")
            .alias(alias)
        )

    a, b = side("l", "a"), side("r", "b")
    joined = a.join(
        b, F.expr(f"a.k = b.k AND a.rowtime <= b.rowtime AND b.rowtime <= a.rowtime + INTERVAL {window_s} SECONDS")
    )
    return joined.select(
        F.greatest("a.rowtime", "b.rowtime").alias("ROWTIME"), F.col("a.id").alias("a_id"), F.col("b.id").alias("b_id")
    )


def run_once(spark: Any, variant: str, folder: Path, window_s: int, label: str) -> Run:
    """Run one variant over all files (AvailableNow) into the noop sink and measure it."""
    build = overjoin_query if variant == "overjoin" else handwritten_query
    df = build(spark, folder, window_s)
    assert df.isStreaming
    checkpoint = tempfile.mkdtemp(prefix=f"bench-join-{variant}-")
    start = time.perf_counter()
    query = (
        df.writeStream.format("noop")
        .outputMode("append")
        .trigger(availableNow=True)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    last = -1
    while not query.awaitTermination(2):
        p = query.lastProgress
        if p and p["batchId"] != last:
            last = p["batchId"]
            log(f"    {label}: batch {last}, {time.perf_counter() - start:5.1f} s")
    seconds = time.perf_counter() - start
    if query.exception():
        raise RuntimeError(f"{variant} failed: {query.exception()}")
    progress = [p for p in query.recentProgress if p["numInputRows"] or p["stateOperators"]]
    shutil.rmtree(checkpoint, ignore_errors=True)
    return Run(
        variant=variant,
        rows=sum(p["numInputRows"] for p in progress),
        seconds=seconds,
        batches=len(progress),
        peak_state_rows=max((sum(op["numRowsTotal"] for op in p["stateOperators"]) for p in progress), default=0),
        output_rows=sum(max(0, p["sink"].get("numOutputRows", 0)) for p in progress),
    )


# --------------------------------------------------------------------------------------------
# Plans


def plan_of(spark: Any, variant: str, folder: Path, window_s: int) -> str:
    """The physical plan of a micro-batch *with data*: one run over one file per input, with
    no-data batches off (the last batch of a normal run has none, and its plan is pruned to empty
    scans)."""
    one = folder / "plan"
    for side in ("l", "r"):
        (one / side).mkdir(parents=True, exist_ok=True)
        first = sorted((folder / side).glob("*.parquet"))[0]
        shutil.copy2(first, one / side / first.name)
    key = "spark.sql.streaming.noDataMicroBatches.enabled"
    spark.conf.set(key, "false")
    try:
        build = overjoin_query if variant == "overjoin" else handwritten_query
        checkpoint = tempfile.mkdtemp(prefix=f"bench-join-plan-{variant}-")
        query = (
            build(spark, one, window_s)
            .writeStream.format("noop")
            .outputMode("append")
            .trigger(availableNow=True)
            .option("checkpointLocation", checkpoint)
            .start()
        )
        query.awaitTermination()
        plan: str = query._jsq.explainInternal(False)
        shutil.rmtree(checkpoint, ignore_errors=True)
        return plan
    finally:
        spark.conf.unset(key)


_NORMALISE = [
    (re.compile(r"#\d+L?"), ""),  # expression ids
    (re.compile(r"\[id=#?\d+\]"), ""),
    (re.compile(r"\[plan_id=\d+\]"), "[plan_id=*]"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"(operatorId|runId|queryRunId|stateStoreCkptIds)\s*=\s*[^,\]\)]+"), r"\1 = *"),
    (re.compile(r"(file:)?/[^\s,\]]*bench-join-[^\s,\]]*"), "<path>"),
    (re.compile(r"(file:)?/[^\s,\]]*/(l|r)\b"), r"<folder>/\2"),
    (re.compile(r"Some\(\d{10,}\)"), "Some(<watermark>)"),
    (re.compile(r"\b\d{10,}\b"), "<n>"),
]


def normalise(plan: str) -> list[str]:
    """The plan without what differs from run to run: expression ids, paths, watermark values."""
    lines = []
    for line in plan.splitlines():
        for pattern, repl in _NORMALISE:
            line = pattern.sub(repl, line)
        lines.append(line.rstrip())
    return lines


def plan_diff(a: str, b: str) -> list[str]:
    return list(difflib.unified_diff(normalise(a), normalise(b), "overjoin", "handwritten", lineterm="", n=1))


# --------------------------------------------------------------------------------------------
# Report


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}){mem}"


def write_results(text: str) -> None:
    """Replace (or append) the ``## Stream join throughput`` section of RESULTS.md."""
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    start = old.find(SECTION + "\n")
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        nxt = old.find("\n## ", start + len(SECTION))
        rest = old[nxt + 1 :] if nxt >= 0 else ""
        new = old[:start] + text + ("\n" + rest if rest else "")
    RESULTS.write_text(new.rstrip("\n") + "\n")


def spread_sentence(a: list[Run], b: list[Run], med_a: float, med_b: float) -> str:
    """Whether the difference between the variants is larger than the noise between runs."""

    def spread(runs: list[Run]) -> float:
        speeds = [r.rows_per_second for r in runs]
        return (max(speeds) - min(speeds)) / statistics.median(speeds)

    diff = abs(med_a - med_b) / med_b
    noise = max(spread(a), spread(b))
    verdict = (
        "smaller than the spread between runs of one variant: no measurable difference"
        if diff < noise
        else "larger than the spread between runs of one variant"
    )
    return (
        f"Run-to-run spread (max - min over median): overjoin {spread(a):.0%}, hand-written "
        f"{spread(b):.0%}. The difference of the medians, {diff:.0%}, is {verdict}."
    )


def report(
    args: argparse.Namespace,
    runs: list[Run],
    command: str,
    versions: str,
    diff: list[str],
    window_rows: int,
    per_batch: int,
) -> str:
    a = [r for r in runs if r.variant == "overjoin"]
    b = [r for r in runs if r.variant == "handwritten"]
    med_a = statistics.median(r.rows_per_second for r in a)
    med_b = statistics.median(r.rows_per_second for r in b)
    # Each overjoin run against the hand-written run right after it: drift over the session (the
    # JIT keeps warming up) affects both members of a pair about equally.
    paired = [x.rows_per_second / y.rows_per_second for x, y in zip(a, b)]
    lines = [
        SECTION,
        "",
        f"Command: `{command}`  ",
        f"Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
        f"Machine: {machine()}  ",
        f"Software: {versions}",
        "",
        f"Input: {args.rows:,} rows per input ({2 * args.rows:,} in all), {args.files} Parquet files per input, "
        f"one file per input per micro-batch (Trigger.AvailableNow, `noop` sink); event time advances "
        f"{args.step_ms} ms per row ({1000 // args.step_ms} rows/s of event time per input); {args.keys} keys; "
        f"window {args.window} s on the left input, `RANGE CURRENT ROW` (no window) on the right.",
        "",
        "Runs alternate overjoin / hand-written after one unreported warm-up run of each.",
        "",
        "| run | variant | input rows | seconds | input rows/s | micro-batches | peak state rows | output rows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(runs, 1):
        lines.append(
            f"| {i} | {r.variant} | {r.rows:,} | {r.seconds:.1f} | {r.rows_per_second:,.0f} | "
            f"{r.batches} | {r.peak_state_rows:,} | {r.output_rows:,} |"
        )
    lines += [
        "",
        f"Median input rows/s: overjoin **{med_a:,.0f}**, hand-written **{med_b:,.0f}**; "
        f"ratio overjoin / hand-written = **{med_a / med_b:.3f}**. Per pair (run 2i-1 / run 2i): "
        + ", ".join(f"{x:.3f}" for x in paired)
        + f"; median of the pairs **{statistics.median(paired):.3f}**.",
        "",
        spread_sentence(a, b, med_a, med_b),
        "",
        (
            "Both variants wrote the same number of rows in every run "
            f"({runs[0].output_rows:,}, the sink's numOutputRows)."
            if len({r.output_rows for r in runs}) == 1
            else "**The variants wrote different numbers of rows** (see the table): the comparison is not "
            "of equal work."
        ),
        "",
        f"State: window content = rate x window = {1000 // args.step_ms} rows/s x {args.window} s = "
        f"{window_rows:,} left rows; the watermark trails by one micro-batch ({per_batch:,} rows per input), "
        f"so up to about {window_rows + 2 * per_batch:,} rows can be held. Peak state rows: overjoin "
        f"{max(r.peak_state_rows for r in a):,}, hand-written {max(r.peak_state_rows for r in b):,} "
        f"(numRowsTotal of the join's state, both sides).",
        "",
        "Physical plans (of a micro-batch with data), normalised (expression ids, paths, watermark values removed): "
        + ("**identical**." if not diff else "they differ only as below."),
    ]
    if diff:
        lines += ["", "```diff", *diff, "```"]
    lines += [
        "",
        "What differs between the two queries: overjoin finds the rowtime by the column name, adds the "
        "1 ms watermark delay itself, filters `rowtime IS NOT NULL` on each input (a row without rowtime is in "
        "no window; Spark infers the same filter from the hand-written interval condition), writes the "
        "interval with a calendar-interval constant (`a.rowtime + 0 <= b.rowtime AND b.rowtime <= "
        f"a.rowtime + {args.window} seconds`) and computes ROWTIME as `greatest(a.rowtime, b.rowtime)` (for an "
        "inner join; outer joins add the null-padded cases). The hand-written query uses "
        '`withWatermark("rowtime", "1 millisecond")`, `a.rowtime <= b.rowtime AND b.rowtime <= a.rowtime + '
        f"INTERVAL {args.window} SECONDS` (a day-time interval constant: the same arithmetic) and `greatest(a.rowtime, "
        "b.rowtime)`. Join keys, watermarks, state-cleanup predicates, filters and exchanges are the same, "
        "as the diff shows. Times are wall-clock per run, query start to end, "
        "so they include Spark's per-micro-batch planning and state-store commits.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Throughput of a stream-stream windowed join: overjoin SQL (a) against the same "
        "join hand-written with the DataFrame API (b), alternating a/b/a/b in one SparkSession. "
        "Writes the '## Stream join throughput' section of bench/RESULTS.md."
    )
    parser.add_argument("--rows", type=int, default=300_000, help="rows per input (default 300000)")
    parser.add_argument("--files", type=int, default=30, help="files (= micro-batches) per input (default 30)")
    parser.add_argument("--window", type=int, default=10, help="window of the left input, seconds (default 10)")
    parser.add_argument("--step-ms", type=int, default=10, help="event time between rows, ms (default 10)")
    parser.add_argument("--keys", type=int, default=1000, help="distinct join keys (default 1000)")
    parser.add_argument("--runs", type=int, default=4, help="runs of each variant, alternating (default 4)")
    parser.add_argument("--no-write", action="store_true", help="print the report, leave RESULTS.md alone")
    args = parser.parse_args(argv)
    command = "python bench/bench_join.py" + "".join(
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
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.adaptive.enabled": "false",
            "spark.driver.memory": "2g",
        }
    )
    spark.sparkContext.setLogLevel("ERROR")
    versions = (
        f"Spark {spark.version}, Java {spark._jvm.System.getProperty('java.version')}, "
        f"Python {platform.python_version()}, overjoin {overjoin.__version__}"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-join-data-"))
    try:
        log(f"generating input in {folder} ...")
        generate(spark, folder, args.rows, args.files, args.step_ms, args.keys)
        # A warm-up run of each over the whole input, not reported: JIT compilation, class loading
        # and codegen caches otherwise make whichever variant runs first look slower.
        for variant in ("overjoin", "handwritten"):
            log(f"  warm-up {variant} (not reported) ...")
            w = run_once(spark, variant, folder, args.window, f"warm-up {variant}")
            log(f"  warm-up {variant}: {w.seconds:.1f} s")

        runs: list[Run] = []
        order = ["overjoin", "handwritten"] * args.runs
        for i, variant in enumerate(order, 1):
            label = f"run {i}/{len(order)} {variant}"
            log(f"  {label} ...")
            r = run_once(spark, variant, folder, args.window, label)
            log(
                f"  {label}: {r.rows:,} rows in {r.seconds:.1f} s = {r.rows_per_second:,.0f} rows/s, "
                f"{r.batches} batches, peak state {r.peak_state_rows:,} rows"
            )
            runs.append(r)
        plan_a = plan_of(spark, "overjoin", folder, args.window)
        plan_b = plan_of(spark, "handwritten", folder, args.window)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    diff = plan_diff(plan_a, plan_b)
    print("\n=== physical plan, overjoin ===\n" + plan_a)
    print("\n=== physical plan, hand-written ===\n" + plan_b)
    print("\n=== normalised diff (overjoin -> hand-written) ===")
    print("\n".join(diff) if diff else "identical")
    window_rows = args.window * 1000 // args.step_ms
    text = report(args, runs, command, versions, diff, window_rows, args.rows // args.files)
    print("\n" + text)
    if not args.no_write:
        write_results(text)
        log(f"wrote the '{SECTION}' section of {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
