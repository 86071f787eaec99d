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
state backend ``hashmap`` (heap), checkpointing off (Flink's default) unless ``--checkpoint-ms``
(exactly-once, to local files). The query::

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

Each run prints one JSON line (bench/_flink_cluster.py, which this script shares with
bench/flink_over.py, says what it holds). ``--serve`` (used by bench_operators.py) sets up once, then
reads commands on stdin: ``run`` prints a run's JSON line, ``sample N`` prints the rows whose id is
a multiple of N as Flink reads them (to check that Flink reads what Spark wrote); end of input ends
the process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _flink_cluster import FlinkCluster, cluster_options, log, serve


def join_insert(args: argparse.Namespace) -> str:
    """The interval join's INSERT (or, with --scan-only, both inputs read into the sink)."""
    if args.scan_only:  # what reading the inputs costs: both sources (CSV, watermarks) into the sink
        return "INSERT INTO out_rows SELECT rowtime, id, id FROM l UNION ALL SELECT rowtime, id, id FROM r"
    kind = "LEFT JOIN" if args.how == "left" else "JOIN"
    w = args.window
    return (
        "INSERT INTO out_rows SELECT "
        "CASE WHEN b.id IS NULL THEN a.rowtime ELSE GREATEST(a.rowtime, b.rowtime) END, "
        f"a.id, b.id FROM l AS a {kind} r AS b ON a.k = b.k "
        f"AND b.rt <= a.rt AND a.rt <= b.rt + INTERVAL '{w}' SECOND "
        f"AND b.rowtime <= a.rowtime AND a.rowtime <= b.rowtime + INTERVAL '{w}' SECOND"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--left", required=True, help="folder with the left input's CSV file")
    p.add_argument("--right", required=True, help="folder with the right input's CSV file")
    p.add_argument("--window", type=int, default=60, help="RANGE window on the right input, seconds (default 60)")
    p.add_argument("--lateness", type=int, default=10, help="watermark delay, seconds (default 10)")
    p.add_argument("--how", choices=("inner", "left"), default="left", help="join type (default left)")
    p.add_argument(
        "--scan-only",
        action="store_true",
        help="run no join: read both inputs into the sink (the share of the CSV scan in a run)",
    )
    cluster_options(p)
    args = p.parse_args(argv)

    cluster = FlinkCluster.from_args(args)
    for name, path in (("l", args.left), ("r", args.right)):
        cluster.t_env.execute_sql(
            f"CREATE TABLE {name} (id BIGINT, k INT, rowtime TIMESTAMP(6), rt AS CAST(rowtime AS TIMESTAMP(3)), "
            f"WATERMARK FOR rt AS rt - INTERVAL '{args.lateness}' SECOND) "
            f"WITH ('connector' = 'filesystem', 'path' = '{Path(path).resolve()}', 'format' = 'csv')"
        )
    cluster.t_env.execute_sql(
        "CREATE TABLE out_rows (rowtime TIMESTAMP(6), a_id BIGINT, b_id BIGINT) WITH ('connector' = 'overjoin-count')"
    )
    insert = join_insert(args)
    if args.explain:
        log(str(cluster.t_env.explain_sql(insert)))
    return serve(
        cluster,
        {"join": insert},
        lambda every: cluster.sample(["l", "r"], "id, k, CAST(rowtime AS STRING)", every),
        args.runs,
        args.serve,
    )


if __name__ == "__main__":
    sys.exit(main())
