"""What pumps that read one source would save by sharing one query: N queries against one query of N branches.

Issue 39 asks for twenty working pumps in one core. Each pump is a Spark streaming query, and each
query's micro-batch pays Spark's floor every trigger (docs/operator.md, "An application's pumps on
one server"). The lever left is for pumps that read the same source to share one query and one
micro-batch. Before building that, this benchmark measures what it can save, in plain Spark (no
server, no pump sink):

* ``separate``: N streaming queries, each reading the source folder and running one pump's work;
* ``shared``: one streaming query whose plan is the union of the same N branches over one read of
  the folder (each branch tags its rows with its number, as a shared pump sink would route them).

The branches alternate between a filter (``WHERE v > 0.5``) and a ten-second tumbling ``AVG`` per
key with a watermark (Spark's state store, as a ``STEP`` pump's). A feeder writes one JSON file of
``--rate`` records into the folder each second. Every query triggers each second into the ``noop``
sink, with the server's pump settings: ``spark.sql.shuffle.partitions`` = 2 (the cores) and
interpreted projections (``spark.sql.codegen.factoryMode=NO_CODEGEN``).

Each configuration runs in a fresh JVM (a child process), the modes alternating at each N. After
``--warmup`` seconds it measures ``--seconds``: the JVM's CPU per second (cores), and the micro-batches
each query ran against the triggers there were (a query that ran fewer than 90% of them fell behind).

Run:  python bench/bench_shared_query.py                      (8 and 20 branches; about 10 minutes)
      python bench/bench_shared_query.py --branches 8 --seconds 20 --no-write
Writes the section ``## Shared queries: what one query of N branches saves`` of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

SECTION = "Shared queries: what one query of N branches saves"
MODES = ("separate", "shared")


def _feed(folder: Path, rate: int, stop: threading.Event) -> None:
    """One JSON file of ``rate`` records a second into ``folder`` (written aside, then renamed in)."""
    rng = random.Random(7)
    i = 0
    while not stop.is_set():
        start = time.time()
        stamp = dt.datetime.fromtimestamp(start, dt.timezone.utc).replace(tzinfo=None).isoformat()
        lines = (json.dumps({"ROWTIME": stamp, "k": rng.randrange(10), "v": rng.random()}) for _ in range(rate))
        tmp = folder / f".r{i:06d}.json"
        tmp.write_text("\n".join(lines))
        tmp.rename(folder / f"r{i:06d}.json")
        i += 1
        stop.wait(max(0.0, 1.0 - (time.time() - start)))


def child(mode: str, branches: int, rate: int, warmup: int, seconds: int) -> dict[str, Any]:
    """One configuration in this process's own JVM; returns its measures."""
    from _spark_bench import jvm_cpu_seconds
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    work = Path(tempfile.mkdtemp(prefix="ojshared-"))
    source = work / "source"
    source.mkdir()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    stop = threading.Event()
    feeder = threading.Thread(target=_feed, args=(source, rate, stop), daemon=True)
    feeder.start()

    def read() -> Any:
        return (
            spark.readStream.schema("ROWTIME timestamp, k int, v double")
            .json(str(source))
            .withWatermark("ROWTIME", "2 seconds")
        )

    def branch(i: int, rows: Any) -> Any:
        if i % 2 == 0:
            return rows.where(F.col("v") > 0.5).select(F.lit(i).alias("branch"), "ROWTIME", "k", "v")
        windows = rows.groupBy(F.window("ROWTIME", "10 seconds"), "k").agg(F.avg("v").alias("v"))
        return windows.select(F.lit(i).alias("branch"), F.col("window.end").alias("ROWTIME"), "k", "v")

    def start(df: Any, name: str) -> Any:
        return (
            df.writeStream.format("noop")
            .queryName(name)
            .option("checkpointLocation", str(work / name))
            .trigger(processingTime="1 second")
            .start()
        )

    if mode == "separate":
        queries = [start(branch(i, read()), f"q{i}") for i in range(branches)]
    else:
        rows = read()
        union = branch(0, rows)
        for i in range(1, branches):
            union = union.unionByName(branch(i, rows))
        queries = [start(union, "shared")]
    time.sleep(warmup)
    before = [q.lastProgress["batchId"] if q.lastProgress else -1 for q in queries]
    cpu0, t0 = jvm_cpu_seconds(spark), time.time()
    time.sleep(seconds)
    cpu1, t1 = jvm_cpu_seconds(spark), time.time()
    after = [q.lastProgress["batchId"] if q.lastProgress else -1 for q in queries]
    stop.set()
    for q in queries:
        q.stop()
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    ran = [a - b for a, b in zip(after, before)]
    return {
        "mode": mode,
        "branches": branches,
        "queries": len(queries),
        "cores": (cpu1 - cpu0) / (t1 - t0),
        "triggers": round(t1 - t0),
        "batches_min": min(ran),
        "batches_median": sorted(ran)[len(ran) // 2],
    }


def main(argv: list[str] | None = None) -> None:
    from _results import replace_section
    from _spark_bench import command_line, report_head

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--branches", default="8,20", help="comma-separated counts of pumps (branches); default 8,20")
    p.add_argument("--rate", type=int, default=100, help="records a second into the source (default 100)")
    p.add_argument("--warmup", type=int, default=25, help="seconds before measuring (default 25)")
    p.add_argument("--seconds", type=int, default=40, help="seconds measured (default 40)")
    p.add_argument("--repeat", type=int, default=2, help="runs of each mode at each count, alternating (default 2)")
    p.add_argument("--no-write", action="store_true", help="print the section instead of writing bench/RESULTS.md")
    p.add_argument("--child", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        result = child(args.child[0], int(args.child[1]), args.rate, args.warmup, args.seconds)
        print("RESULT " + json.dumps(result), flush=True)
        return

    results = []
    for n in [int(x) for x in args.branches.split(",") if x.strip()]:
        for r in range(args.repeat):
            for mode in MODES:
                print(f"[shared-query] {mode} x{n}, run {r + 1} of {args.repeat} ...", file=sys.stderr, flush=True)
                cmd = [sys.executable, __file__, "--child", mode, str(n), "--rate", str(args.rate),
                       "--warmup", str(args.warmup), "--seconds", str(args.seconds)]  # fmt: skip
                out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
                line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
                if line is None:
                    raise SystemExit(f"{mode} x{n} failed:\n{out.stderr[-3000:]}")
                res = json.loads(line[len("RESULT ") :])
                res["run"] = r + 1
                results.append(res)
                print(f"[shared-query]   {res}", file=sys.stderr, flush=True)

    import pyspark

    software = f"Spark {pyspark.__version__}, Python {sys.version.split()[0]}"
    lines = report_head(command_line("bench_shared_query.py", argv), software)
    lines += [
        f"Plain Spark, `local[2]`, 2 shuffle partitions, interpreted projections; one source folder fed "
        f"{args.rate} records a second; branches alternate a filter and a 10 s tumbling `AVG` per key; "
        f"`noop` sink, 1 s trigger. Each row a fresh JVM, {args.warmup} s of warm-up then {args.seconds} s "
        "measured; the modes alternate. Batches: the fewest micro-batches any query ran in the measured "
        "seconds (a query that ran under 90% of its triggers fell behind).",
        "",
        "| branches | mode | queries | run | cores | cores per branch | batches (fewest) / triggers | keeps up |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        keeps = r["batches_min"] >= 0.9 * r["triggers"]
        lines.append(
            f"| {r['branches']} | {r['mode']} | {r['queries']} | {r['run']} | {r['cores']:.2f} | "
            f"{r['cores'] / r['branches']:.3f} | {r['batches_min']} / {r['triggers']} | {'yes' if keeps else 'no'} |"
        )
    body = "\n".join(lines)
    if args.no_write:
        print(body)
    else:
        replace_section(SECTION, body)
        print(f"wrote ## {SECTION} to bench/RESULTS.md", file=sys.stderr)


if __name__ == "__main__":
    main()
