"""The first run of a restart test, in a process of its own so that its driver can be killed.

    python -m tests.spark.restart_child SPEC.json

``SPEC`` names a generated case (``kind`` and ``seed``, see :func:`case_for`) or gives the query and
its micro-batches itself (``sql``, ``schemas`` per view and ``batches``: view -> JSON rows), the
folders of its inputs, the sink and checkpoint folders, and the session's settings. The child starts
its own SparkSession with overjoin, starts the case's query into a Parquet sink, and feeds the
case's micro-batches one by one. It prints ``JVMPID <pid>`` once the session is up, ``WROTE <i>``
after writing batch ``i``'s files and ``DONE <i>`` once the query has processed them; the test kills
its JVM with SIGKILL at some point and finishes the stream itself from the same checkpoint
(tests/spark/test_restart.py).

A spec with ``runs`` (a list of such specs, without their own ``conf``) runs them one after the
other in one session (one driver, and on a cluster one set of executors): ``RUN <k>`` before run
``k``'s lines, ``FINISHED`` after the last (tests/spark/test_cluster.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import overjoin
from tests.generators import Case, random_case
from tests.spark.streams import _jsonable

Batches = list[dict[str, list[dict[str, Any]]]]


def case_for(kind: str, seed: int) -> tuple[Case, Batches]:
    """The generated case of a restart test and its micro-batches (flush batches included):
    ``range`` and ``ordered`` (RANGE windows, 2-3 inputs), ``rows`` (a ROWS window, 2 inputs),
    ``rows_chain`` (3 inputs, a ROWS window in the first join, whose result the second reads),
    ``short_range`` (the same, pairs ended by a short RANGE window, many ROWS windows left open)."""
    if kind == "short_range":
        from tests.spark.test_rows_chains import far_batches, short_range_case

        case = short_range_case(seed)
        return case, case.batches() + far_batches(case)
    if kind == "rows_chain":
        from tests.spark.test_rows_chains import closing_batches, rows_chain_case

        case = rows_chain_case(seed)
        return case, case.batches() + closing_batches(case)
    if kind == "rows":
        from tests.spark.test_rows_streams import flush_rows, rows_case

        case = rows_case(seed)
        flush = flush_rows(case)
        return case, case.batches() + [{v: [f[n]] for v, f in zip(case.views, flush)} for n in range(2)]
    case = random_case(seed)
    return case, case.batches() + case.flush_batches()


def write_batch(folder: str, index: int, rows: list[dict[str, Any]]) -> None:
    """Batch ``index``'s rows of one input as one JSON file, named by the batch so that the two
    processes of a restart test never write the same name twice (renamed into place whole)."""
    if not rows:
        return
    tmp = os.path.join(folder, f".tmp-{index}.json")
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps({k: _jsonable(v) for k, v in r.items()}) + "\n")
    os.rename(tmp, os.path.join(folder, f"batch-{index:04d}.json"))


def main(spec_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    runs = spec.get("runs", [spec])
    spark = overjoin.session(**spec["conf"])
    spark.sparkContext.setLogLevel("ERROR")
    print(f"JVMPID {spark._jvm.java.lang.ProcessHandle.current().pid()}", flush=True)
    for k, run in enumerate(runs):
        if "runs" in spec:
            print(f"RUN {k}", flush=True)
        _run(spark, run)
    print("FINISHED", flush=True)


def _run(spark: Any, spec: dict[str, Any]) -> None:
    """One stream of a spec: its views, its query into its Parquet sink, its batches fed one by one."""
    if "sql" in spec:
        sql, batches, schemas = spec["sql"], spec["batches"], spec["schemas"]
        folder_of = dict(zip(spec["views"], spec["folders"]))
    else:
        case, batches = case_for(spec["kind"], spec["seed"])
        sql, schemas = case.sql_reading(spec["views"]), dict.fromkeys(spec["views"], spec["schema"])
        folder_of = {view: spec["folders"][case.views.index(view)] for view in case.views}
    ordered = spec.get("kind") == "ordered"
    if ordered:
        spark.conf.set("spark.overjoin.emit", "ordered")
    for view, folder in zip(spec["views"], spec["folders"]):
        spark.readStream.schema(schemas[view]).json(folder).createOrReplaceTempView(view)
    query = (
        spark.sql(sql)
        .writeStream.format("parquet")
        .option("path", spec["out"])
        .option("checkpointLocation", spec["checkpoint"])
        .outputMode("append")
        .start()
    )
    for i, batch in enumerate(batches):
        for view, rows in batch.items():
            write_batch(folder_of[view], i, rows)
        print(f"WROTE {i}", flush=True)
        query.processAllAvailable()
        print(f"DONE {i}", flush=True)
    query.stop()
    if ordered:  # not for the session's next run
        spark.conf.unset("spark.overjoin.emit")


if __name__ == "__main__":
    main(sys.argv[1])
