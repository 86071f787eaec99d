"""Stream joins survive a restart from their checkpoint with no row lost or duplicated.

A streaming query that stops (or whose driver dies) and restarts from its checkpoint must
produce, in an exactly-once sink, exactly the rows of one uninterrupted run: the reference model's
answer (docs/semantics.md §1, §8). Generated cases run into a Parquet sink, whose
``_spark_metadata`` log makes it exactly-once: RANGE windows (2-3 inputs, every join type, chained
outer joins among them), ROWS windows (without the padded rows of windows that never close, which
a stream never emits), a ROWS join whose result is joined again (its held rows and held-back
watermark; also with pairs ended by a short RANGE window while ROWS windows stay open), and
ordered output (``spark.overjoin.emit = ordered``);

* ``test_stop_and_restart...`` stops the query between micro-batches or right after writing a
  batch's files (mid-batch), then starts it again from the same checkpoint and sink;
* ``test_kill_9...`` runs the first part in a child process (its own driver) and kills that JVM
  with SIGKILL while a micro-batch is in flight, then finishes the stream here. A kill counts only
  if, the JVM dead, the checkpoint holds a batch's offsets without its commit; if the batch
  finished first, the next batch is tried, and the test fails if no kill ever lands in flight.

Run more seeds with ``OVERJOIN_RESTART_SEEDS`` (or ``OVERJOIN_SOAK``).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.generators import SCHEMA, Case, describe, random_case
from tests.jvm import short_lived_env
from tests.reference_model import multiset
from tests.seeds import count
from tests.spark.restart_child import case_for, write_batch

pytestmark = pytest.mark.streaming

REPO = Path(__file__).resolve().parents[2]
COUNT = count("OVERJOIN_RESTART_SEEDS", 6)


def _cases(count: int, *, chained_outer: bool) -> list[int]:
    """Seeds of generated cases with some output and at least two micro-batches; with ``chained_outer``, three
    inputs whose first join is an outer join (its padded rows feed the second join)."""
    seeds: list[int] = []
    seed = 5000
    while len(seeds) < count:
        case = random_case(seed)
        fits = (
            len(case.batches()) >= 2
            and bool(case.without_flush(case.expected()))
            and (not chained_outer or (len(case.views) == 3 and case.kinds[0] in ("LEFT", "RIGHT", "FULL")))
        )
        if fits:
            seeds.append(seed)
        seed += 1
    return seeds


_CHAINED = _cases((COUNT + 1) // 2, chained_outer=True)
# The other half: cases not already among the chained ones (each seed runs once).
SEEDS = (
    _CHAINED + [s for s in _cases(COUNT // 2 + len(_CHAINED), chained_outer=False) if s not in _CHAINED][: COUNT // 2]
)
# (kind, seed): RANGE windows (chained outer joins among them), ROWS windows, ordered output.
RUNS = (
    [("range", s) for s in SEEDS]
    + [("rows", s) for s in range(6100, 6100 + max(1, COUNT // 2))]
    + [("ordered", s) for s in SEEDS[: max(1, COUNT // 3)]]
    + [("rows_chain", s) for s in range(8100, 8100 + max(1, COUNT // 3))]
    # Seeds whose pairs the join above could not pad before issue 21's fix (test_rows_chains.py).
    + [("short_range", s) for s in (9100, 9105)]
)


def _expected(kind: str, case: Case, batches: list[dict[str, list[dict[str, Any]]]]) -> list[tuple[Any, ...]]:
    arrived = [[r for b in batches for r in b.get(v, [])] for v in case.views]
    if kind == "rows":
        from tests.spark.test_rows_streams import stream_expected

        return stream_expected(case, arrived)
    if kind in ("rows_chain", "short_range"):
        return case.without_flush(case.with_rows(arrived).expected())
    return case.without_flush(case.expected())


def _sink_rows(spark: Any, out: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.read.parquet(out).collect()]


def _start(spark: Any, case: Case, views: list[str], out: str, checkpoint: str) -> Any:
    return (
        spark.sql(case.sql_reading(views))
        .writeStream.format("parquet")
        .option("path", out)
        .option("checkpointLocation", checkpoint)
        .outputMode("append")
        .start()
    )


def _streams(spark: Any, views: list[str], folders: list[str]) -> None:
    for view, folder in zip(views, folders):
        spark.readStream.schema(SCHEMA).json(folder).createOrReplaceTempView(view)


def feed_restarting_once(
    spark: Any,
    case: Case,
    views: list[str],
    folders: list[str],
    out: str,
    checkpoint: str,
    batches: list[dict[str, list[dict[str, Any]]]],
    stop_at: int | None,
    before_restart: Any = None,
) -> None:
    """Runs ``case`` as a stream into ``out``, one micro-batch per batch, and once batch ``stop_at``
    is processed stops it, calls ``before_restart()`` (if given) and starts it again from its
    checkpoint; feeds the rest and processes everything."""
    query = _start(spark, case, views, out, checkpoint)
    try:
        for i, batch in enumerate(batches):
            for view, rows in batch.items():
                write_batch(folders[case.views.index(view)], i, rows)
            query.processAllAvailable()
            if i == stop_at:
                query.stop()
                if before_restart is not None:
                    before_restart()
                query = _start(spark, case, views, out, checkpoint)
        query.processAllAvailable()
    finally:
        query.stop()


def _log_ids(checkpoint: str, log: str) -> set[int]:
    """The batch ids in a checkpoint's ``offsets`` or ``commits`` log (its files named by number)."""
    path = Path(checkpoint) / log
    return {int(p.name) for p in path.iterdir() if p.name.isdigit()} if path.exists() else set()


def in_flight(checkpoint: str) -> int | None:
    """The batch that is planned (its offsets written) but not committed, if any: a micro-batch in
    progress, or, once the driver is dead, the one it died in."""
    pending = _log_ids(checkpoint, "offsets") - _log_ids(checkpoint, "commits")
    return max(pending) if pending else None


def _wait_for_a_batch_in_progress(checkpoint: str, timeout: float = 5.0) -> bool:
    """Until a micro-batch is planned (in the offset log) but not committed; whether one was seen
    within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if in_flight(checkpoint) is not None:
            return True
        time.sleep(0.002)
    return False


def _assert_exact(case: Case, rows: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> None:
    actual = case.without_flush(rows)
    assert multiset(actual) == multiset(expected), describe(case, actual)


@pytest.mark.parametrize(("kind", "seed"), RUNS, ids=lambda v: str(v))
def test_stop_and_restart_from_the_checkpoint_returns_the_replay_rows(spark, kind, seed):
    case, batches = case_for(kind, seed)
    views = [f"{v}_r{seed}" for v in case.views]
    folders = [tempfile.mkdtemp(prefix=f"overjoin-restart-{v}-") for v in views]
    out = tempfile.mkdtemp(prefix="overjoin-restart-out-")
    checkpoint = tempfile.mkdtemp(prefix="overjoin-restart-ckpt-")
    _streams(spark, views, folders)
    # Stop after a processed batch on even seeds; on odd ones right after writing the files, so
    # the stop may interrupt a micro-batch in progress.
    mid_batch = seed % 2 == 1
    stop_at = {len(batches) // 2, len(batches) - 2}
    if kind == "ordered":
        spark.conf.set("spark.overjoin.emit", "ordered")
    query = _start(spark, case, views, out, checkpoint)
    restarts = 0
    try:
        for i, batch in enumerate(batches):
            for view, rows in batch.items():
                write_batch(folders[case.views.index(view)], i, rows)
            if i in stop_at and mid_batch:
                query.stop()
                query = _start(spark, case, views, out, checkpoint)
                restarts += 1
            query.processAllAvailable()
            if i in stop_at and not mid_batch:
                query.stop()
                query = _start(spark, case, views, out, checkpoint)
                restarts += 1
        query.processAllAvailable()
    finally:
        query.stop()
        spark.conf.unset("spark.overjoin.emit")
    assert restarts >= 1
    _assert_exact(case, _sink_rows(spark, out), _expected(kind, case, batches))


KILL_RUNS = [
    # One of each operator kind: a second range case cost 17 s of every CI run and checked nothing the
    # first and the stop-and-restart test's generated range cases do not.
    ("range", next(s for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3)),
    ("rows", next(s for s in range(6200, 6300) if len(case_for("rows", s)[1]) >= 5)),
    ("ordered", next(s for s in _cases(8, chained_outer=True) if len(random_case(s).batches()) >= 3)),
    ("rows_chain", next(s for s in range(8200, 8300) if len(case_for("rows_chain", s)[1]) >= 6)),
]


CHILD_CONF = {
    "spark.master": "local[2]",
    "spark.sql.shuffle.partitions": "2",
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.adaptive.enabled": "false",
    "spark.driver.memory": "1g",
}


def _run_child_and_kill_it(work: Path, spec: dict[str, Any], kill_after: int) -> int:
    """Runs the first part of a stream in a child driver (tests/spark/restart_child.py) and kills
    its JVM with SIGKILL while a micro-batch is in flight, trying batch ``kill_after`` first, then
    each later one. A kill counts only if it landed in flight: once the JVM is dead, the checkpoint
    holds the offsets of a batch without its commit. Returns the batch whose files were the last
    the child wrote (the caller writes the rest); fails if no kill landed in flight."""
    spec_path = work / "spec.json"
    spec_path.write_text(json.dumps(spec))
    checkpoint = spec["checkpoint"]
    errors = open(work / "child.err", "w")
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.spark.restart_child", str(spec_path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        env=short_lived_env(),  # its JVM lives seconds (tests/jvm.py)
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    jvm_pid, written, killed_in = None, -1, None
    missed: list[int] = []
    try:
        while killed_in is None:
            line = lines.get(timeout=300)
            if line is None:
                break  # the child finished (or died) with no kill in flight
            if line.startswith("JVMPID "):
                jvm_pid = int(line.split()[1])
            elif line.startswith("WROTE "):
                written = int(line.split()[1])
            if not line.startswith("WROTE ") or written < kill_after:
                continue
            # Batch `written` is on its way: kill as soon as it is planned and not committed, or
            # move on to the next batch once the child says this one is done.
            assert jvm_pid is not None
            while True:
                if in_flight(checkpoint) is not None:
                    os.kill(jvm_pid, signal.SIGKILL)
                    # Dead now: the logs on disk are what it left. In flight iff a batch has offsets
                    # and no commit (it may have committed between the look and the kill).
                    child.wait(timeout=60)
                    killed_in = in_flight(checkpoint)
                    if killed_in is None:
                        missed.append(written)
                    break
                try:
                    done = lines.get_nowait()
                except queue.Empty:
                    time.sleep(0.002)
                    continue
                if done is None or done == f"DONE {written}":
                    missed.append(written)
                    if done is None:
                        lines.put(None)
                    break
            if child.poll() is not None:
                break
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=60)
        errors.close()
    tail = "\n".join((work / "child.err").read_text().splitlines()[-15:])
    assert killed_in is not None, (
        f"no SIGKILL landed while a micro-batch was in flight (tried after writing batches {missed}, "
        f"the child wrote up to batch {written}):\n{tail}"
    )
    committed = _log_ids(checkpoint, "commits")
    assert committed, "the killed run committed no batch: nothing was restarted"
    return written


def child_spec(work: Path, kind: str, seed: int, suffix: str, conf: dict[str, str]) -> dict[str, Any]:
    """The spec of a restart child (tests/spark/restart_child.py) for the generated case ``(kind,
    seed)``: its views (named ``<view>_<suffix><seed>``), their input folders (created), and the
    sink and checkpoint under ``work``."""
    case, _ = case_for(kind, seed)
    views = [f"{v}_{suffix}{seed}" for v in case.views]
    folders = [str(work / v) for v in views]
    for f in folders:
        os.makedirs(f)
    return {
        "kind": kind,
        "seed": seed,
        "views": views,
        "folders": folders,
        "out": str(work / "out"),
        "checkpoint": str(work / "checkpoint"),
        "schema": SCHEMA,
        "conf": conf,
    }


def kill_9_then_finish(spark: Any, work: Path, kind: str, seed: int, suffix: str, conf: dict[str, str]) -> str:
    """Runs the first half of case ``(kind, seed)`` in a child driver with ``conf``, kills its JVM
    with SIGKILL mid-batch, finishes the stream here from the same checkpoint and asserts the
    replay rows. Returns the checkpoint's path."""
    case, batches = case_for(kind, seed)
    spec = child_spec(work, kind, seed, suffix, conf)
    written = _run_child_and_kill_it(work, spec, len(batches) // 2)

    views, folders, out = spec["views"], spec["folders"], spec["out"]
    _streams(spark, views, folders)
    if kind == "ordered":
        spark.conf.set("spark.overjoin.emit", "ordered")
    query = _start(spark, case, views, out, spec["checkpoint"])
    try:
        query.processAllAvailable()
        for i in range(written + 1, len(batches)):
            for view, rows in batches[i].items():
                write_batch(folders[case.views.index(view)], i, rows)
            query.processAllAvailable()
    finally:
        query.stop()
        spark.conf.unset("spark.overjoin.emit")
    # The batch the kill interrupted was run again, and every batch since is committed.
    assert in_flight(spec["checkpoint"]) is None
    _assert_exact(case, _sink_rows(spark, out), _expected(kind, case, batches))
    return str(spec["checkpoint"])


@pytest.mark.parametrize(("kind", "seed"), KILL_RUNS)
def test_kill_9_of_the_driver_then_restart_returns_the_replay_rows(spark, tmp_path, kind, seed):
    """The driver JVM of the first run dies by SIGKILL while a micro-batch is in progress."""
    kill_9_then_finish(spark, tmp_path / f"{kind}{seed}", kind, seed, "k", CHILD_CONF)


@pytest.mark.parametrize("op", ["<=", ">="])
def test_asof_join_of_two_streams_restarts_from_its_checkpoint(spark, tmp_path, op):
    """An ASOF LEFT join of two streams (its waiting rows are state), stopped in the middle of a
    micro-batch and restarted, returns the reference model's rows as a stream emits them (looking
    forward, an x with no later y never gets its NULL row on a stream, docs/semantics.md §6), and
    replay the model's rows, all of them."""
    import datetime as dt
    import random

    seed = 11 if op == "<=" else 12
    rng = random.Random(seed)
    base = dt.datetime(2024, 1, 1, 9, 0)
    keys = ["A", "B", "C", None]
    xs: list[dict[str, Any]] = sorted(
        ({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 80)), "v": i} for i in range(30)),
        key=lambda r: r["ts"],
    )
    ys: list[dict[str, Any]] = sorted(
        (
            {"k": k, "ts": base + dt.timedelta(seconds=s), "w": 100 + n}
            for n, (k, s) in enumerate(sorted({(rng.choice(keys), rng.randint(0, 80)) for _ in range(25)}, key=str))
        ),
        key=lambda r: r["ts"],
    )
    sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF LEFT JOIN {y} y ON x.k = y.k AND y.ts " + op + " x.ts"
    tag = "b" if op == "<=" else "f"
    spark.createDataFrame(
        [(r["k"], r["ts"], r["v"]) for r in xs], "k string, ts timestamp, v int"
    ).createOrReplaceTempView(f"rax_t{tag}")
    spark.createDataFrame(
        [(r["k"], r["ts"], r["w"]) for r in ys], "k string, ts timestamp, w int"
    ).createOrReplaceTempView(f"ray_t{tag}")
    replay = sorted(tuple(r) for r in spark.sql(sql.format(x=f"rax_t{tag}", y=f"ray_t{tag}")).collect())
    assert replay == _asof_model(xs, ys, op, None), f"seed {seed}"

    folders = {name: tmp_path / name for name in ("x", "y")}
    for folder in folders.values():
        folder.mkdir()
    spark.readStream.schema("k string, ts timestamp, v int").json(str(folders["x"])).createOrReplaceTempView(
        f"rax_s{tag}"
    )
    spark.readStream.schema("k string, ts timestamp, w int").json(str(folders["y"])).createOrReplaceTempView(
        f"ray_s{tag}"
    )
    batches = []
    for lo, hi in ((-1, 20), (20, 40), (40, 60), (60, 81)):
        batches.append(
            {
                "x": [r for r in xs if lo < (r["ts"] - base).seconds <= hi],
                "y": [r for r in ys if lo < (r["ts"] - base).seconds <= hi],
            }
        )
    for hours in (5, 6):
        far = base + dt.timedelta(hours=hours)
        batches.append({"x": [{"k": "Z", "ts": far, "v": -1}], "y": [{"k": "Z", "ts": far, "w": -1}]})
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")

    def start() -> Any:
        return (
            spark.sql(sql.format(x=f"rax_s{tag}", y=f"ray_s{tag}"))
            .writeStream.format("parquet")
            .option("path", out)
            .option("checkpointLocation", checkpoint)
            .outputMode("append")
            .start()
        )

    query = start()
    try:
        for i, batch in enumerate(batches):
            for name, rows in batch.items():
                write_batch(str(folders[name]), i, rows)
            if i == 2:
                query.stop()  # maybe in the middle of the batch just written
                query = start()
            query.processAllAvailable()
    finally:
        query.stop()
    stream = sorted(tuple(r) for r in spark.read.parquet(out).collect() if r.v != -1)
    # The flush rows move the watermark to 05:00, past every row of the data: the model's rows
    # emitted by then (looking forward, no NULL row for an x whose key has no later y, §6).
    expected = _asof_model(xs, ys, op, base + dt.timedelta(hours=5))
    assert any(r[2] is None for r in expected) and any(r[2] is not None for r in expected), f"seed {seed}"
    assert stream == expected, f"seed {seed}"


def _asof_model(xs: list[dict[str, Any]], ys: list[dict[str, Any]], op: str, watermark: Any) -> list[tuple[Any, ...]]:
    """The reference model's ``(ROWTIME, x.v, y.w)`` of ``x ASOF LEFT JOIN y ON x.k = y.k AND
    y.ts op x.ts`` (docs/semantics.md §6): all of it (replay) when ``watermark`` is None, else what
    a stream has emitted once its watermark is there."""
    from tests.reference_model import Input, asof, asof_streamed, sort_key

    x, y = Input("x", xs, "ts"), Input("y", ys, "ts")
    out = (
        asof(x, y, [("k", "k")], op, "LEFT")
        if watermark is None
        else asof_streamed(x, y, [("k", "k")], op, "LEFT", watermark=watermark)
    )
    rows = [(o.rowtime, o.rows["x"]["v"], None if o.rows["y"] is None else o.rows["y"]["w"]) for o in out]  # type: ignore[index]
    return sorted(rows, key=sort_key)


def _asof_data(op: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, list[dict[str, Any]]]]]:
    """Rows of x and y for an ASOF join (keys with NULLs, ties) and their micro-batches: four of
    data, then two far-future flush rows (key Z) that move every watermark past the data."""
    import datetime as dt
    import random

    rng = random.Random(21 if op == "<=" else 22)
    base = dt.datetime(2024, 1, 1, 9, 0)
    keys = ["A", "B", "C", None]
    xs: list[dict[str, Any]] = sorted(
        ({"k": rng.choice(keys), "ts": base + dt.timedelta(seconds=rng.randint(0, 80)), "v": i} for i in range(40)),
        key=lambda r: r["ts"],
    )
    ys: list[dict[str, Any]] = sorted(
        (
            {"k": k, "ts": base + dt.timedelta(seconds=t), "w": 100 + n}
            for n, (k, t) in enumerate(sorted({(rng.choice(keys), rng.randint(0, 80)) for _ in range(30)}, key=str))
        ),
        key=lambda r: r["ts"],
    )
    batches = []
    for lo, hi in ((-1, 20), (20, 40), (40, 60), (60, 81)):
        batches.append(
            {
                "x": [r for r in xs if lo < (r["ts"] - base).seconds <= hi],
                "y": [r for r in ys if lo < (r["ts"] - base).seconds <= hi],
            }
        )
    for hours in (5, 6):
        far = base + dt.timedelta(hours=hours)
        batches.append({"x": [{"k": "Z", "ts": far, "v": -1}], "y": [{"k": "Z", "ts": far, "w": -1}]})
    return xs, ys, batches


def _jsonable_batches(batches: list[dict[str, list[dict[str, Any]]]]) -> list[dict[str, list[dict[str, Any]]]]:
    from tests.spark.streams import _jsonable

    return [{v: [{k: _jsonable(x) for k, x in r.items()} for r in rows] for v, rows in b.items()} for b in batches]


@pytest.mark.parametrize("kind", ["asof", "tumbling", "sliding", "rcf"])
def test_kill_9_during_an_asof_join_or_a_tumbling_aggregation_then_restart(spark, tmp_path, kind):
    """The other stateful paths: an ASOF LEFT join of two streams (its waiting rows are state), a
    STEP aggregation over a stream (Spark's aggregation state), a sliding window (overjoin's
    operator: rows waiting for the watermark and the rows later windows need) and RANDOM_CUT_FOREST
    (its forest and waiting rows), killed mid-batch and restarted, return the reference's rows
    exactly once (docs/semantics.md §6, §11, §12, §14; the forest's scores are replay's, to the bit)."""
    import datetime as dt
    import random

    if kind == "asof":
        xs, ys, batches = _asof_data("<=")
        schemas = {"x": "k string, ts timestamp, v int", "y": "k string, ts timestamp, w int"}
        sql = "SELECT ROWTIME, x.v, y.w FROM {x} x ASOF LEFT JOIN {y} y ON x.k = y.k AND y.ts <= x.ts"
        spark.createDataFrame([(r["k"], r["ts"], r["v"]) for r in xs], schemas["x"]).createOrReplaceTempView("k9x_t")
        spark.createDataFrame([(r["k"], r["ts"], r["w"]) for r in ys], schemas["y"]).createOrReplaceTempView("k9y_t")
        replay = sorted(tuple(r) for r in spark.sql(sql.format(x="k9x_t", y="k9y_t")).collect())
        # Looking back, every x of the data is emitted once the flush rows pass it: all of the model.
        expected = _asof_model(xs, ys, "<=", None)
        assert replay == expected, "seed 21"  # _asof_data("<=")
        assert any(r[2] is None for r in expected) and any(r[2] is not None for r in expected)
    elif kind == "sliding":
        from tests.spark.test_sliding_windows import restart_case

        batches, schemas, sql, expected = restart_case()
    elif kind == "rcf":
        rng = random.Random(77)
        t0 = dt.datetime(2024, 1, 1, 9, 0)
        beats = [
            {"ROWTIME": t0 + dt.timedelta(milliseconds=300 * i), "id": i,
             "hr": rng.randint(150, 200) if rng.random() < 0.02 else rng.randint(60, 100)}
            for i in range(240)
        ]  # fmt: skip
        batches = [{"x": beats[i : i + 40]} for i in range(0, len(beats), 40)]
        batches += [{"x": [{"ROWTIME": t0 + dt.timedelta(hours=h), "id": -1, "hr": 70}]} for h in (5, 6)]
        schemas = {"x": "ROWTIME timestamp, id int, hr int"}
        sql = (
            "SELECT STREAM id, ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST(CURSOR("
            "SELECT STREAM ROWTIME, hr, CAST(id AS STRING) AS id FROM {x}), 50, 64))"
        )
        spark.createDataFrame([(r["ROWTIME"], r["id"], r["hr"]) for r in beats], schemas["x"]).createOrReplaceTempView(
            "k9rcf_t"
        )
        expected = sorted(tuple(r) for r in spark.sql(sql.format(x="k9rcf_t")).collect())
        assert len(expected) == len(beats) and any(r[1] > 0 for r in expected)
    else:
        from tests.reference_model import step_floor, tumbling_groups

        rng = random.Random(31)
        base = dt.datetime(2024, 1, 1, 9, 0)
        rows: list[dict[str, Any]] = sorted(
            (
                {
                    "id": i,
                    "k": rng.randint(0, 2),
                    "v": rng.randint(1, 9),
                    "ts": base + dt.timedelta(milliseconds=rng.randint(0, 120_000)),
                }
                for i in range(150)
            ),
            key=lambda r: r["ts"],
        )
        batches = [{"x": rows[i : i + 25]} for i in range(0, len(rows), 25)]
        batches += [{"x": [{"id": -1, "k": 9, "v": 0, "ts": base + dt.timedelta(hours=h)}]} for h in (5, 6)]
        schemas = {"x": "id int, k int, v int, ts timestamp"}
        sql = (
            "SELECT STREAM ROWTIME, k, COUNT(*) AS n, SUM(v) AS total FROM {x} AS s "
            "GROUP BY k, STEP(s.ts BY INTERVAL '10' SECOND)"
        )
        sql = sql.replace("{x} AS s", "{x} OVER (ORDER BY ts RANGE CURRENT ROW) AS s")
        size = dt.timedelta(seconds=10)
        groups = tumbling_groups(
            rows, "ts", lambda t: (step_floor(t, size), step_floor(t, size) + size), lambda r: (r["k"],)
        )
        expected = sorted((end, k, len(g), sum(r["v"] for r in g)) for (end, _, k), g in groups.items())

    views = {v: f"k9{kind}_{v}" for v in schemas}
    folders = {v: tmp_path / views[v] for v in schemas}
    for f in folders.values():
        f.mkdir()
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")
    streaming_sql = sql.format(**views)
    spec = {
        "views": list(views.values()),
        "folders": [str(folders[v]) for v in schemas],
        "schemas": {views[v]: s for v, s in schemas.items()},
        "sql": streaming_sql,
        "batches": [{views[v]: rows for v, rows in b.items()} for b in _jsonable_batches(batches)],
        "out": out,
        "checkpoint": checkpoint,
        "conf": CHILD_CONF,
    }
    written = _run_child_and_kill_it(tmp_path, spec, 2)

    for v, s in schemas.items():
        spark.readStream.schema(s).json(str(folders[v])).createOrReplaceTempView(views[v])
    query = (
        spark.sql(streaming_sql)
        .writeStream.format("parquet")
        .option("path", out)
        .option("checkpointLocation", checkpoint)
        .outputMode("append")
        .start()
    )
    try:
        query.processAllAvailable()
        for i in range(written + 1, len(batches)):
            for v, rows in _jsonable_batches(batches)[i].items():
                write_batch(str(folders[v]), i, rows)
            query.processAllAvailable()
    finally:
        query.stop()
    assert in_flight(checkpoint) is None
    got = sorted(tuple(r) for r in spark.read.parquet(out).collect())
    if kind == "rcf":
        got = [r for r in got if r[0] != "-1"]
    else:
        got = [r for r in got if r[1] != -1] if kind in ("asof", "sliding") else [r for r in got if r[1] != 9]
    assert got == expected
