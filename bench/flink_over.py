"""Flink's OVER aggregation for bench/bench_sliding.py: the same sliding window, on the same rows.

Run with the Python of a venv that has ``apache-flink`` 2.3 (see bench/bench_operators.py):

  /work/flinkenv/bin/python bench/flink_over.py --input DIR [--window 60] [--runs 3]

The input is a folder holding ONE CSV file of ``id,k,v,rowtime`` rows in time order (rowtime as
``yyyy-MM-dd HH:mm:ss.SSSSSS``, UTC; one file so that one source subtask reads it in order, see
bench/flink_join.py; the flush row's NULL ``v`` is an empty field). Flink runs as for the join
(bench/_flink_cluster.py: streaming mode, a local MiniCluster with parallelism 2, hashmap state,
checkpointing off unless --checkpoint-ms). The query::

  INSERT INTO out_rows SELECT rowtime, id, k, c, s, mn, mx, a FROM (
    SELECT rowtime, id, k, COUNT(*) OVER w AS c, CAST(SUM(v) OVER w AS BIGINT) AS s,
           MIN(v) OVER w AS mn, MAX(v) OVER w AS mx, AVG(CAST(v AS DOUBLE)) OVER w AS a
    FROM src WINDOW w AS (PARTITION BY k ORDER BY rt RANGE BETWEEN INTERVAL 'W' SECOND PRECEDING
                        AND CURRENT ROW)) WHERE k <> <flush key>

with the watermark ``rt - INTERVAL 'L' SECOND``; ``rt`` is ``rowtime`` cast to TIMESTAMP(3), a time
attribute's precision (the benchmark's rowtimes are whole milliseconds, so nothing is lost). The
casts give Spark's result types (SUM of an INT is a BIGINT and AVG a DOUBLE in Spark, an INT in
Flink). The flush row (bench/_flink.py) is filtered out of the output, as in every Spark engine.

Two INSERTs are served: ``over`` into the counting sink (timed runs) and ``check`` into the same
sink with ``'checksum' = 'true'`` (the rows' checksum, compared with Spark's output).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _flink_cluster import FlinkCluster, cluster_options, log, serve

FLUSH_KEY = -1  # bench/_flink.py's
OUT_COLUMNS = "rowtime TIMESTAMP(6), id BIGINT, k INT, c BIGINT, s BIGINT, mn INT, mx INT, a DOUBLE"


def over_select(window: int) -> str:
    return (
        "SELECT rowtime, id, k, c, s, mn, mx, a FROM ("
        "SELECT rowtime, id, k, COUNT(*) OVER w AS c, CAST(SUM(v) OVER w AS BIGINT) AS s, "
        "MIN(v) OVER w AS mn, MAX(v) OVER w AS mx, AVG(CAST(v AS DOUBLE)) OVER w AS a FROM src "
        f"WINDOW w AS (PARTITION BY k ORDER BY rt RANGE BETWEEN INTERVAL '{window}' SECOND PRECEDING "
        f"AND CURRENT ROW)) WHERE k <> {FLUSH_KEY}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--input", required=True, help="folder with the input's CSV file")
    p.add_argument("--window", type=int, default=60, help="RANGE ... PRECEDING, seconds (default 60)")
    p.add_argument("--lateness", type=int, default=10, help="watermark delay, seconds (default 10)")
    cluster_options(p)
    args = p.parse_args(argv)

    cluster = FlinkCluster.from_args(args)
    t_env = cluster.t_env
    t_env.execute_sql(
        "CREATE TABLE src (id BIGINT, k INT, v INT, rowtime TIMESTAMP(6), rt AS CAST(rowtime AS TIMESTAMP(3)), "
        f"WATERMARK FOR rt AS rt - INTERVAL '{args.lateness}' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{Path(args.input).resolve()}', 'format' = 'csv', "
        "'csv.null-literal' = '')"  # the flush row's v is NULL, an empty field
    )
    t_env.execute_sql(f"CREATE TABLE out_rows ({OUT_COLUMNS}) WITH ('connector' = 'overjoin-count')")
    t_env.execute_sql(
        f"CREATE TABLE out_check ({OUT_COLUMNS}) WITH ('connector' = 'overjoin-count', 'checksum' = 'true')"
    )
    select = over_select(args.window)
    inserts = {"over": f"INSERT INTO out_rows {select}", "check": f"INSERT INTO out_check {select}"}
    if args.explain:
        log(str(t_env.explain_sql(inserts["over"])))
    return serve(
        cluster,
        inserts,
        lambda every: cluster.sample(["src"], "id, k, CAST(v AS STRING), CAST(rowtime AS STRING)", every),
        args.runs,
        args.serve,
    )


if __name__ == "__main__":
    sys.exit(main())
