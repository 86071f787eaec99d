"""The Flink engine of bench/bench_operators.py and bench/bench_sliding.py: its input files and the
process that runs it.

Flink runs in its own venv (``apache-flink`` 2.3 pins dependencies that clash with overjoin's test
and server extras), so a benchmark starts ``bench/flink_join.py --serve`` (or flink_over.py) under
that venv's Python once, and asks it for one run at a time (``run``); the process, its JVM and its
Flink MiniCluster live for the whole benchmark, as the Spark session does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "FLINK_JOIN",
    "FLINK_OVER",
    "FLUSH_KEY",
    "FlinkEngine",
    "find_flink_python",
    "write_flink_inputs",
    "write_flush_file",
]

HERE = Path(__file__).resolve().parent
FLINK_JOIN = HERE / "flink_join.py"
FLINK_OVER = HERE / "flink_over.py"
ENV_VAR = "OVERJOIN_FLINK_PYTHON"
# Keys of the data are pmod(hash(id), keys) >= 0: the flush rows' key meets no other row.
FLUSH_KEY = -1
CSV_TIMESTAMP = "yyyy-MM-dd HH:mm:ss.SSSSSS"


def find_flink_python(option: str | None) -> tuple[str | None, str]:
    """The Python to run flink_join.py with, or None and why not. ``option`` is --flink-python;
    else $OVERJOIN_FLINK_PYTHON; else this Python if it has ``pyflink``."""
    path = option or os.environ.get(ENV_VAR)
    if path:
        if not (shutil.which(path) or Path(path).is_file()):
            return None, f"`{path}` (--flink-python / ${ENV_VAR}) does not exist"
        probe = subprocess.run([path, "-c", "import pyflink"], capture_output=True, text=True, check=False)
        if probe.returncode != 0:
            return None, f"`{path}` cannot import pyflink (`apache-flink` is not installed in its venv)"
        return path, ""
    try:
        import pyflink  # noqa: F401
    except ImportError:
        return None, (f"no Python with `apache-flink` was given (--flink-python or ${ENV_VAR}) and this one has none")
    return sys.executable, ""


def write_flush_file(spark: Any, target: Path, first_id: int, flush_us: int) -> None:
    """The last file of an input: one row, id ``first_id``, key FLUSH_KEY, rowtime ``flush_us``.

    Both inputs get one at the same rowtime, far past every other row's window and lateness: it
    moves every engine's watermark past all the other rows, so the Spark engines too evict and pad
    every unmatched row before ``Trigger.AvailableNow`` stops (Flink does so at the end of its
    bounded input anyway). The two flush rows meet each other and nothing else, so each engine
    outputs exactly one row for them, for an inner as for a LEFT join."""
    tmp = target.parent / f"tmp-flush-{target.name}"
    (
        spark.range(first_id, first_id + 1, numPartitions=1)
        .selectExpr("id", f"CAST({FLUSH_KEY} AS INT) AS k", f"timestamp_micros({flush_us}) AS rowtime")
        .write.parquet(str(tmp))
    )
    (part,) = tmp.glob("part-*.parquet")
    files = sorted(target.glob("*.parquet"))
    shutil.move(str(part), target / f"{len(files):05d}.parquet")
    shutil.rmtree(tmp)


def write_flink_inputs(spark: Any, folder: Path, schema: str, sides: tuple[str, ...] = ("l", "r")) -> dict[str, Path]:
    """One CSV file per input (``folder/flink-l``, ``folder/flink-r``) holding the rows of its
    Parquet files in id (= file, = time) order, then read back with Spark and compared with the
    Parquet rows: identical ids, keys and rowtimes, or an error."""
    out = {}
    for side in sides:
        rows = spark.read.schema(schema).parquet(str(folder / side))
        tmp = folder / f"tmp-csv-{side}"
        (rows.repartition(1).sortWithinPartitions("id").write.option("timestampFormat", CSV_TIMESTAMP).csv(str(tmp)))
        (part,) = tmp.glob("part-*.csv")
        target = folder / f"flink-{side}"
        target.mkdir()
        shutil.move(str(part), target / "data.csv")
        shutil.rmtree(tmp)
        back = spark.read.schema(schema).option("timestampFormat", CSV_TIMESTAMP).csv(str(target))
        n, m = rows.count(), back.count()
        if n != m or rows.exceptAll(back).count() or back.exceptAll(rows).count():
            raise RuntimeError(f"the CSV file of input {side} does not hold the rows of its Parquet files")
        out[side] = target
    return out


class FlinkEngine:
    """``script --serve args...`` (flink_join.py, flink_over.py) under ``python``: one JSON line per
    command."""

    def __init__(self, python: str, script: Path, args: list[str]) -> None:
        self.python = python
        cmd = [python, str(script), "--serve", *args]
        # stderr (its log lines) goes to ours; stdout carries the JSON lines.
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.info = self._reply(lambda o: "ready" in o)

    def _reply(self, wanted: Any) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue  # anything else the JVM or pyflink print
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if "error" in obj:
                raise RuntimeError(f"flink_join.py: {obj['error']}")
            if wanted(obj):
                return obj
        raise RuntimeError(f"flink_join.py ended (exit code {self.proc.wait()}); see its messages above")

    def _ask(self, command: str, wanted: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._reply(wanted)

    @property
    def version(self) -> str:
        return str(self.info.get("flink_version", "?"))

    def run(self, name: str = "") -> dict[str, Any]:
        """One run of the script's INSERT ``name`` (default its first)."""
        return self._ask(f"run {name}".strip(), lambda o: o.get("engine") == "flink")

    def check_sample(
        self,
        spark: Any,
        folder: Path,
        schema: str,
        every: int,
        sides: tuple[str, ...] = ("l", "r"),
        between: tuple[str, ...] = (),
    ) -> int:
        """Rows with id % every == 0 as Flink reads them from the CSV files against the same rows
        of the Parquet files as Spark reads them; returns how many were compared. A row is its
        id, k, the columns ``between`` as strings, and its rowtime as a string."""
        flink = self._ask(f"sample {every}", lambda o: "sample" in o)["sample"]
        compared = 0
        for side in sides:
            spark_rows = sorted(
                [int(r[0]), int(r[1]), *(str(x) for x in r[2:])]
                for r in spark.read.schema(schema)
                .parquet(str(folder / side))
                .where(f"id % {every} = 0")
                .selectExpr(
                    "id", "k", *(f"CAST({c} AS STRING)" for c in between), f"date_format(rowtime, '{CSV_TIMESTAMP}')"
                )
                .collect()
            )
            if spark_rows != flink[side]:
                raise RuntimeError(
                    f"Flink reads other rows than Spark from input {side}: "
                    f"{flink[side][:3]} ... against {spark_rows[:3]} ..."
                )
            compared += len(spark_rows)
        return compared

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
