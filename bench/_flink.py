"""The Flink engine of bench/bench_operators.py and bench/bench_sliding.py: its input files and the
process that runs it.

Flink runs in its own venv (``apache-flink`` 2.3 pins dependencies that clash with overjoin's test
and server extras), so a benchmark starts ``bench/flink_join.py --serve`` (or flink_over.py) under
that venv's Python once, and asks it for one run at a time (``run``); the process, its JVM and its
Flink MiniCluster live for the whole benchmark, as the Spark session does.

``--flink-checkpoints`` (``flink_options``) adds the engine ``flink-ckpt``: the same job in a second
process whose MiniCluster checkpoints (exactly-once, ``hashmap`` state, to local files under a
temporary folder) at an interval that gives about as many checkpoints as Spark commits micro-batches:
Flink's warm-up wall time over overjoin's micro-batches in its warm-up (``checkpoint_interval_ms``).
Spark's engines commit their state store at every micro-batch; Flink's default is no checkpoints.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _spark_bench import Run, Size, fmt_n, log

__all__ = [
    "FLINK_JOIN",
    "FLINK_OVER",
    "FLUSH_KEY",
    "FlinkEngine",
    "checkpoint_interval_ms",
    "checkpoint_line",
    "checkpointed",
    "engine_note",
    "find_flink_python",
    "flink_options",
    "run_flink",
    "run_size",
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


def flink_options(p: argparse.ArgumentParser) -> None:
    """--flink-python and --flink-checkpoints, as every benchmark with a Flink engine takes them."""
    p.add_argument(
        "--flink-python",
        metavar="PATH",
        default=None,
        help=f"a Python with apache-flink 2.3 to run the flink engine (default: ${ENV_VAR}, "
        "else this Python if it has pyflink, else flink is not run)",
    )
    p.add_argument(
        "--flink-checkpoints",
        action="store_true",
        help="also run Flink with checkpointing (engine flink-ckpt: exactly-once, hashmap state, to local files), "
        "about as many checkpoints as overjoin's micro-batches",
    )


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
    command. ``insert`` names the script's INSERT that ``run`` runs by default (its first if
    empty); ``checkpoint_ms`` > 0 starts its MiniCluster with checkpointing at that interval."""

    def __init__(self, python: str, script: Path, args: list[str], insert: str = "", checkpoint_ms: int = 0) -> None:
        self.python, self.script, self.args, self.insert = python, script, args, insert
        self.checkpoint_ms = checkpoint_ms
        cmd = [python, str(script), "--serve", *args]
        if checkpoint_ms > 0:
            cmd += ["--checkpoint-ms", str(checkpoint_ms)]
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
        """One run of the script's INSERT ``name`` (default ``insert``, else its first)."""
        return self._ask(f"run {name or self.insert}".strip(), lambda o: o.get("engine") == "flink")

    def with_checkpoints(self, checkpoint_ms: int) -> FlinkEngine:
        """A second process of the same script and arguments whose MiniCluster checkpoints."""
        return FlinkEngine(self.python, self.script, self.args, self.insert, checkpoint_ms)

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


def run_flink(flink: FlinkEngine, engine: str = "flink", name: str = "") -> Run:
    """One run of ``flink``'s INSERT (``name``, default its own) as a benchmark's ``Run``; its CPU
    seconds are its gateway JVM's over the job."""
    o = flink.run(name)
    return Run(
        engine=engine,
        input_rows=o["input_rows"],
        cpu_seconds=o["cpu_seconds"],
        wall_seconds=o["wall_seconds"],
        batches=None,
        output_rows=o["output_rows"],
        peak_state_rows=None,
        checkpoints=o["checkpoints"],
        checkpoint_max_bytes=o.get("checkpoint_max_bytes"),
        checkpoint_avg_ms=o.get("checkpoint_avg_ms"),
    )


def checkpoint_interval_ms(flink_warmup: Run, overjoin_warmup: Run) -> int:
    """Flink's checkpoint interval for about as many checkpoints as Spark's commits: the wall time
    of Flink's warm-up (uncheckpointed) over overjoin's micro-batches in its warm-up; 10 ms at least."""
    return max(10, int(flink_warmup.wall_seconds * 1000 / (overjoin_warmup.batches or 1)))


def checkpointed(flink: FlinkEngine, warm: dict[str, Run], warmups: int, size: Size) -> FlinkEngine:
    """Start ``flink-ckpt`` for ``size``: ``flink``'s job checkpointing at ``checkpoint_interval_ms``
    of the warm-ups ``warm`` (engine -> its last warm-up run; ``flink`` and ``overjoin`` needed),
    then its own ``warmups`` unreported runs. Sets ``size.checkpoint_ms``. The caller closes it."""
    size.checkpoint_ms = checkpoint_interval_ms(warm["flink"], warm["overjoin"])
    log(f"  {size.seconds:g} s: starting flink-ckpt, checkpoints every {size.checkpoint_ms} ms ...")
    engine = flink.with_checkpoints(size.checkpoint_ms)
    for w in range(warmups):
        r = run_flink(engine, "flink-ckpt")
        log(f"  {size.seconds:g} s: warm-up {w + 1}/{warmups} flink-ckpt (not reported): {r.checkpoints} checkpoints")
    return engine


def run_size(
    size: Size,
    engines: list[str],
    spark_run: Callable[[str, str], Run],
    flink: FlinkEngine | None,
    warmups: int,
    runs: int,
    checkpoints: bool,
) -> None:
    """The runs at ``size``, appended to ``size.runs``: ``warmups`` unreported runs of each engine,
    then ``runs`` of each, alternating. ``spark_run(engine, label)`` runs a Spark engine; ``flink``
    runs on ``flink``; with ``checkpoints`` (and a warm-up of ``overjoin`` and ``flink``), also
    ``flink-ckpt`` (``checkpointed``), stopped at the end."""
    ckpt: FlinkEngine | None = None

    def one(engine: str, label: str) -> Run:
        if engine == "flink" and flink:
            return run_flink(flink)
        if engine == "flink-ckpt" and ckpt:
            return run_flink(ckpt, engine)
        return spark_run(engine, label)

    try:
        warm: dict[str, Run] = {}
        for w in range(warmups):
            for engine in engines:
                log(f"  {size.seconds:g} s: warm-up {w + 1}/{warmups} {engine} (not reported) ...")
                warm[engine] = one(engine, f"warm-up {engine}")
        if checkpoints and flink and "flink" in warm and "overjoin" in warm:
            ckpt = checkpointed(flink, warm, warmups, size)
            engines = [*engines, "flink-ckpt"]
        for i, engine in enumerate(engines * runs, 1):
            label = f"{size.seconds:g} s: run {i}/{len(engines) * runs} {engine}"
            r = one(engine, label)
            log(
                f"  {label}: {r.input_rows:,} rows, {r.cpu_seconds:.1f} CPU s ({r.wall_seconds:.1f} s wall) = "
                f"{r.rows_per_cpu_second:,.0f} rows/CPU s, {r.output_rows:,} out, peak state "
                f"{fmt_n(r.peak_state_rows)}, state on disk {fmt_n(r.state_bytes)} bytes, "
                f"batches {fmt_n(r.batches)}, checkpoints {fmt_n(r.checkpoints)}"
            )
            size.runs.append(r)
    finally:
        if ckpt:
            ckpt.close()


def checkpoint_line(size: Size) -> list[str]:
    """The report's line on ``flink-ckpt`` at ``size`` (none if it did not run)."""
    runs = [r for r in size.runs if r.engine == "flink-ckpt"]
    if size.checkpoint_ms is None or not runs:
        return []
    spark = [r.batches for r in size.runs if r.engine == "overjoin" and r.batches]
    largest = max(r.checkpoint_max_bytes or 0 for r in runs)
    return [
        f"`flink-ckpt`: checkpoints every {size.checkpoint_ms} ms (Flink's warm-up wall time over overjoin's "
        f"micro-batches in its warm-up); completed checkpoints per run: {', '.join(str(r.checkpoints) for r in runs)}"
        + (f" (overjoin's micro-batches, each a commit of its state: {', '.join(map(str, spark))})" if spark else "")
        + f"; their average duration per run (ms, end to end): {', '.join(fmt_n(r.checkpoint_avg_ms) for r in runs)}"
        + f"; the largest checkpoint's state: {largest:,} bytes."
        + (
            " Fewer checkpoints than commits: the interval is set from a warm-up's wall time, one checkpoint runs "
            "at a time (a due one waits for the one before), and none starts before every task of the job runs."
            if spark and min(r.checkpoints or 0 for r in runs) < 0.9 * min(spark)
            else ""
        )
    ]


def engine_note(version: str, script: Path, python: str, reads: str, checkpoints: bool) -> str:
    """The report's note on how Flink ran; ``reads`` says what the script reads and how."""
    ckpt = (
        " `flink-ckpt` is the same job in a second MiniCluster with checkpointing on: exactly-once, at the "
        "interval given for each size (about as many checkpoints as Spark's commits), `hashmap` state, "
        "`filesystem` checkpoint storage in local files under a temporary folder (full snapshots of the heap "
        "state; the job's checkpoints are deleted when it ends)."
        if checkpoints
        else ""
    )
    return (
        f"ran Flink {version} (`bench/{script.name}` under `{python}`): streaming mode, a local "
        "MiniCluster (1 task manager, 2 slots, parallelism 2) in pyflink's gateway JVM (-Xmx4g, as Spark's "
        "driver), state backend `hashmap` (heap), checkpointing off for `flink` (Flink's default; Spark commits "
        f"its state store every micro-batch), everything else default.{ckpt} {reads} "
        "It writes to a sink that counts rows (bench/flink/CountingSinkFactory.java). "
        "CPU: its JVM's utime + stime from just before the INSERT is submitted to the job's end (planning, "
        "submission and scheduling included; JVM and MiniCluster start-up not). Peak state rows: n/a, the "
        "hashmap state backend exposes no count of its rows."
    )
