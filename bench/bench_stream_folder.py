"""What a pump that reads a stream pays per micro-batch as the stream's folder fills.

A durable stream (a pump's target, an intermediate stream of a chain) is a folder of Parquet files,
one per micro-batch of each pump that writes it, and nothing takes files out of it. Spark's file
source lists the whole folder at every trigger to find the new files; the server's pumps read a
durable stream from its log of files instead (``StreamLogSource``, docs/operator.md, "A durable
stream's log"). This benchmark measures what each costs a reader: for each reader and count of files
already in the folder, a streaming query like a filter pump (``WHERE id > 0`` into the ``noop``
sink, a processing-time trigger of 1 s) first takes in the files there, then one new file arrives
each second; over the next ``--seconds`` triggers it reports the milliseconds of each trigger's
``latestOffset`` (the listing) and ``getBatch`` (p50 / p90 / p99 from the queries' progress), and
the JVM's CPU per second.

The files are copies of one small Parquet file named as a pump names its batches
(``pump-<name>-g1-b<batch>.parquet``); for the log's reader each new one is put in place as a pump
puts its batch (``StreamLog.publish``: its entry, then one rename). The session is overjoin's
(``overjoin.session()``, local[2]), with the local file system ``overjoin server`` uses for streams
(``NioLocalFileSystem``).

Run:  python bench/bench_stream_folder.py                  (100, 10,000, 40,000 files, both readers; 10 minutes)
      python bench/bench_stream_folder.py --files 100,86400 (a day of one file a second)
Writes the section ``## A stream's folder as it fills`` of bench/RESULTS.md (``--no-write``: prints it).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import replace_section
from _spark_bench import command_line, jvm_cpu_seconds, log, report_head, start_session, versions

SECTION = "A stream's folder as it fills"


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


READERS = {"file-source": "Spark's file source", "stream-log": "the stream's log"}


def measure(spark: Any, base: Path, seed: Path, files: int, seconds: int, reader: str, run: int) -> dict[str, Any]:
    """One folder of ``files`` files and a reader over it (run number ``run``); its triggers' costs
    once it has caught up."""
    folder = base / f"{run}-{reader}-{files}"
    folder.mkdir()
    for i in range(files):
        shutil.copyfile(seed, folder / f"pump-x-g1-b{i:012d}.parquet")
    if reader == "stream-log":
        jvm = spark._jvm
        stream_log = jvm.io.overjoin.streams.StreamLog.apply(str(folder), spark._jsc.hadoopConfiguration())
        stream_log.visible()  # made from the files already there, as for a stream written before its log
        staging = folder / "_staging"
        staging.mkdir()

        def arrive(name: str) -> None:
            shutil.copyfile(seed, staging / name)
            hadoop = jvm.org.apache.hadoop.fs.Path
            stream_log.publish(
                hadoop(str(staging / name)), hadoop(str(folder / name)), getattr(stream_log, "publish$default$3")()
            )

        source = spark.readStream.format("org.apache.spark.sql.overjoin.StreamLogProvider")
    else:

        def arrive(name: str) -> None:
            shutil.copyfile(seed, folder / name)

        source = spark.readStream.format("parquet")
    query = (
        source.schema("id LONG, ROWTIME TIMESTAMP")
        .load(str(folder))
        .where("id > 0")
        .writeStream.format("noop")
        .option("checkpointLocation", str(base / f"checkpoint-{run}"))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        query.processAllAvailable()
        first = query.lastProgress["batchId"]
        time.sleep(2)
        cpu0, t0 = jvm_cpu_seconds(spark), time.monotonic()
        for i in range(seconds):
            arrive(f"pump-x-g1-b{files + i:012d}.parquet")
            time.sleep(1)
            print(f"\r  {READERS[reader]}, {files:,} files: {i + 1}/{seconds} s", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        query.processAllAvailable()
        cores = (jvm_cpu_seconds(spark) - cpu0) / (time.monotonic() - t0)
        progress = [p for p in query.recentProgress if p["batchId"] > first and p["numInputRows"] > 0]
        rows = sum(int(p["numInputRows"]) for p in progress)
    finally:
        query.stop()
    listing = [float(p["durationMs"].get("latestOffset", 0)) for p in progress]
    batch = [float(p["durationMs"].get("getBatch", 0)) for p in progress]
    return {
        "reader": reader,
        "files": files,
        "batches": len(progress),
        "rows": rows,
        "cores": cores,
        "listing": listing,
        "batch": batch,
    }


def report(outcomes: list[dict[str, Any]], command: str, software: str, seconds: int) -> str:
    lines = report_head(command, software)
    lines += [
        f"Each row: a folder with that many Parquet files already in it (the reader has taken them in), then "
        f"one new file a second for {seconds} s; a reader like a filter pump (`WHERE id > 0`, `noop` sink, "
        "1 s trigger) on overjoin's session, by Spark's file source or by the stream's log (the server's "
        "pumps' reader of a durable stream). Milliseconds per micro-batch from the query's progress "
        "(`latestOffset`: finding new files, which for Spark's file source lists the folder; `getBatch`: "
        "the batch's relation), p50 / p90 / p99; cores: the JVM's CPU seconds per second over the measured "
        "seconds; rows: the rows the measured batches read (3 per new file). Rows in the order run, in one "
        "JVM: the first also pays the JVM's warm-up.",
        "",
        "| reader | files in the folder | batches | rows | latestOffset ms | getBatch ms | cores |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        lo, gb = o["listing"] or [0.0], o["batch"] or [0.0]
        lines.append(
            f"| {READERS[o['reader']]} | {o['files']:,} | {o['batches']} | {o['rows']} | "
            f"{pct(lo, 50):.0f} / {pct(lo, 90):.0f} / {pct(lo, 99):.0f} | "
            f"{pct(gb, 50):.0f} / {pct(gb, 90):.0f} / {pct(gb, 99):.0f} | {o['cores']:.2f} |"
        )
    for reader in READERS:
        mine = sorted((o for o in outcomes if o["reader"] == reader), key=lambda o: o["files"])
        if len(mine) >= 2 and mine[-1]["files"] > mine[0]["files"]:
            a, b = mine[0], mine[-1]
            per = (statistics.median(b["listing"] or [0.0]) - statistics.median(a["listing"] or [0.0])) / (
                b["files"] - a["files"]
            )
            lines += [
                "",
                f"{READERS[reader]}: cost of finding new files per file in the folder (from the medians of "
                f"{a['files']:,} and {b['files']:,} files): {per * 1000:.1f} us.",
            ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--files", default="100,10000,40000", help="files already in the folder, one run each")
    p.add_argument("--seconds", type=int, default=15, help="seconds measured per run, one new file each (default 15)")
    p.add_argument(
        "--readers",
        default="file-source,stream-log",
        help="readers to measure at each count, in this order: file-source, stream-log, or both (the default); "
        "a reader named twice is measured twice",
    )
    p.add_argument("--no-write", action="store_true", help="print the results, leave RESULTS.md as it is")
    args = p.parse_args(argv)
    counts = [int(x) for x in args.files.split(",") if x]
    readers = [r for r in args.readers.split(",") if r]
    unknown = sorted(set(readers) - set(READERS))
    if unknown:
        p.error(f"--readers: unknown reader(s) {', '.join(unknown)}; choose from {', '.join(READERS)}")
    import overjoin

    # As `overjoin server` sets it on a local master; the class must be on the driver's class path
    # before the session starts, as the server's launcher puts it.
    spark = start_session(
        {
            "spark.hadoop.fs.file.impl": "io.overjoin.streaming.NioLocalFileSystem",
            "spark.driver.extraClassPath": overjoin.jar_path(),
        }
    )
    with tempfile.TemporaryDirectory(prefix="overjoin-folder-") as tmp:
        base = Path(tmp)
        spark.range(3).selectExpr("id", "current_timestamp() AS ROWTIME").coalesce(1).write.parquet(str(base / "seed"))
        seed = next(f for f in (base / "seed").iterdir() if f.name.endswith(".parquet"))
        outcomes: list[dict[str, Any]] = []
        # Readers alternate at each count, so that the JVM's warm-up (the first run) is not one
        # reader's alone; a reader named twice is measured twice.
        for n in counts:
            for reader in readers:
                log(f"{READERS[reader]}, {n:,} files ...")
                outcomes.append(measure(spark, base, seed, n, args.seconds, reader, len(outcomes)))
    body = report(outcomes, command_line("bench_stream_folder.py", argv), versions(spark), args.seconds)
    print(body)
    if not args.no_write:
        replace_section(SECTION, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
