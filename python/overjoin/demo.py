"""The Orders/Shipments demo: a SQLstream-style windowed join running live on Spark.

Orders and Shipments arrive as JSON files in two watched folders, a few rows at a time. After
each micro-batch the demo prints the rows the join emitted, the event-time watermark and how many
rows the join keeps in state, then finishes by itself.

Run it with ``make demo``, ``overjoin demo`` or ``python -m overjoin.demo``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

__all__ = ["QUERY", "main"]

QUERY = """SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime
FROM Shipments AS s
JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
  ON o.orderId = s.orderId"""

_DAY = dt.date(2024, 3, 1)

# The seed's inputs, in the order they arrive: (stream, "hh:mm", orderId).
_ARRIVALS: list[list[tuple[str, str, int]]] = [
    [("Orders", "10:00", 100), ("Orders", "10:10", 101), ("Orders", "10:20", 102)],
    [("Orders", "10:25", 103), ("Shipments", "10:30", 101)],
    [("Orders", "10:40", 104), ("Shipments", "10:45", 100)],
    [("Shipments", "10:55", 103)],
    [("Shipments", "11:05", 103)],
    [("Shipments", "11:30", 104)],
    # Not in the seed: later rows that match nothing move the watermark on, and the join drops the
    # rows no future row can meet from its state.
    [("Orders", "11:45", 105), ("Shipments", "11:50", 106)],
]


def _ts(hhmm: str) -> str:
    h, m = hhmm.split(":")
    return dt.datetime.combine(_DAY, dt.time(int(h), int(m))).isoformat()


def _write(folder: str, name: str, rows: list[dict[str, Any]]) -> None:
    tmp = os.path.join(folder, f".{name}.tmp")
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    os.rename(tmp, os.path.join(folder, f"{name}.json"))


def _watermark(progress: dict[str, Any] | None) -> str:
    """The watermark in overjoin's terms: Spark's plus the millisecond overjoin adds to its delay
    (Spark drops rows at the watermark, overjoin only rows strictly behind it)."""
    raw = (progress or {}).get("eventTime", {}).get("watermark")
    if not raw or raw.startswith("1970-01-01"):
        return "none yet"
    value = dt.datetime.fromisoformat(raw.replace("Z", "+00:00")) + dt.timedelta(milliseconds=1)
    return value.strftime("%H:%M:%S")


def _state_rows(progress: dict[str, Any] | None) -> int:
    if not progress:
        return 0
    return sum(int(op.get("numRowsTotal", 0)) for op in progress.get("stateOperators", []))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; returns the process exit code."""
    parser = argparse.ArgumentParser(
        prog="overjoin demo",
        description="Run the Orders/Shipments windowed stream join live, printing each micro-batch.",
    )
    parser.add_argument("--master", default="local[2]", help="Spark master (default: %(default)s)")
    parser.add_argument("--keep", action="store_true", help="keep the input and checkpoint folders")
    args = parser.parse_args(argv)

    import overjoin

    print("Starting Spark with overjoin ...", flush=True)
    spark = overjoin.session(
        **{
            "spark.master": args.master,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.catalogImplementation": "in-memory",
        }
    )
    spark.sparkContext.setLogLevel("ERROR")
    root = tempfile.mkdtemp(prefix="overjoin-demo-")
    folders = {name: os.path.join(root, name) for name in ("Orders", "Shipments")}
    schema = "rowtime TIMESTAMP, orderId INT"
    for name, folder in folders.items():
        os.makedirs(folder)
        spark.readStream.schema(schema).json(folder).createOrReplaceTempView(name)

    print("\nQuery:\n" + QUERY + "\n", flush=True)
    query = (
        spark.sql(QUERY)
        .writeStream.format("memory")
        .queryName("overjoin_demo")
        .outputMode("append")
        .option("checkpointLocation", os.path.join(root, "checkpoint"))
        .start()
    )
    emitted = 0
    try:
        for i, arrivals in enumerate(_ARRIVALS, start=1):
            for name in folders:
                rows = [{"rowtime": _ts(t), "orderId": k} for s, t, k in arrivals if s == name]
                if rows:
                    _write(folders[name], f"batch-{i:02d}", rows)
            query.processAllAvailable()
            arrived = ", ".join(f"{s} {t} #{k}" for s, t, k in arrivals)
            rows_now = spark.table("overjoin_demo").collect()
            new = rows_now[emitted:]
            emitted = len(rows_now)
            progress = query.lastProgress
            watermark = _watermark(progress)
            print(f"batch {i}: arrived {arrived}")
            for r in sorted(new, key=lambda r: r["ROWTIME"]):
                print(f"    ROWTIME {r['ROWTIME']:%H:%M}  orderId {r['orderId']}  orderTime {r['orderTime']:%H:%M}")
            if not new:
                print("    (no new rows)")
            print(f"    watermark {watermark}   rows in join state {_state_rows(progress)}", flush=True)
        print(
            f"\nDone: {emitted} rows, the 5 rows of the Kinesis Data Analytics reference example; "
            "the last batch shows the join state shrinking as the watermark moves on."
        )
    finally:
        query.stop()
        spark.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
