"""End-to-end latency of pumps in ``overjoin server``: input visible to the source -> row visible in the target.

What a KDA user measures: a record lands, and how long until the row it causes is in the
destination stream. Three pumps, each run alone on a server started the way a user starts it:

  join    a windowed join, each shipment with its order of the minute before
          (``JOIN STREAM orders OVER (RANGE INTERVAL '1' MINUTE PRECEDING)``); one order file, then
          half a gap later the shipment's: latency from the shipment's file to the joined row
  step    a ``STEP(ROWTIME BY INTERVAL '1' SECOND)`` aggregation (lateness 0); one row per file,
          each in a second of its own: the window of row i closes when row i+1 arrives, so latency
          is from row i+1's file to window i's row (the watermark moves in one micro-batch, the
          window is emitted by the next, as Spark does)
  chain   two pumps, ``in -> mid -> out``: latency from the input file to the row in ``out``

Each input file holds one JSON row with ``ROWTIME`` = the wall clock, written under a hidden
name and renamed into the source's folder (the moment it is visible to the source); a watcher
polls the target's folder every 20 ms and reads each new Parquet file. The first ``--warmup``
rows of each pump (code generation, first state stores) are left out of the percentiles.

Every configuration is a fresh server; by default two, side by side in one run: the server's
defaults (shuffle partitions = its cores) and the same server with Spark's default of 200
shuffle partitions (what every pump ran with before). The trigger is the server's default (1 s).
Reports p50/p90/p99 and max per pump and configuration, with the load average around each run
(latency is wall-clock time, so a loaded machine shows in it).

Run:  python bench/bench_pump_latency.py                  (60 rows per pump, about 10 minutes)
      python bench/bench_pump_latency.py --rows 15 --no-write   (a quick look)
      python bench/bench_pump_latency.py --help
Writes the section ``## Pump latency`` of bench/RESULTS.md. Needs overjoin installed with its
``server`` extra (PyHive, pyarrow).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import platform
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import replace_section

SECTION = "Pump latency"


# ---- the server -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """``overjoin server`` on loopback, stopped by PID."""

    state: Path
    conf: list[str]
    thrift_port: int = field(default_factory=_free_port)
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        cmd = [sys.executable, "-m", "overjoin", "server", "--state-dir", str(self.state),
               "--thrift-port", str(self.thrift_port), "--connect-port", str(_free_port()),
               "--ui-port", str(_free_port()), "--conf", "spark.sql.session.timeZone=UTC"]  # fmt: skip
        for kv in self.conf:
            cmd += ["--conf", kv]
        self.state.mkdir(parents=True, exist_ok=True)
        err = open(self.state.parent / f"{self.state.name}.stderr", "ab")  # noqa: SIM115 (the child's)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        assert self.proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline, buf = time.monotonic() + 300, b""
        while b"\n" not in buf:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"overjoin server did not start; see {err.name}")
            if sel.select(timeout=1.0):
                buf += os.read(self.proc.stdout.fileno(), 4096)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(60)

    def run(self, *statements: str) -> list[tuple[object, ...]]:
        """Runs the statements in one PyHive session; the last one's rows."""
        from pyhive import hive

        conn = hive.connect(host="127.0.0.1", port=self.thrift_port, username="bench")
        try:
            cur = conn.cursor()
            rows: list[tuple[object, ...]] = []
            for sql in statements:
                cur.execute(sql)
                rows = [tuple(r) for r in cur.fetchall()] if cur.description else []
            return rows
        finally:
            conn.close()

    def location(self, stream: str) -> Path:
        for name, value, *_ in self.run(f"DESCRIBE TABLE EXTENDED {stream}"):
            if str(name).strip() == "Location":
                return Path(str(value).removeprefix("file:"))
        raise RuntimeError(f"no location for {stream}")


# ---- inputs and the watcher -------------------------------------------------------------------


def land(folder: Path, name: str, record: dict[str, object]) -> float:
    """Writes one JSON row under a hidden name and renames it into ``folder``; the time it became visible."""
    tmp = folder / f".{name}.tmp"
    tmp.write_text(json.dumps(record) + "\n")
    os.replace(tmp, folder / f"{name}.json")
    return time.time()


def now_rowtime() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Watcher(threading.Thread):
    """Polls a target stream's folder; the time each value of ``column`` was first seen."""

    def __init__(self, folder: Path, column: str) -> None:
        super().__init__(daemon=True)
        self.folder, self.column = folder, column
        self.seen: dict[int, float] = {}
        self._files: set[str] = set()
        self._halt = threading.Event()

    def run(self) -> None:
        import pyarrow.parquet as pq

        while not self._halt.is_set():
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(self.folder):
                    if entry.name in self._files or not entry.name.endswith(".parquet"):
                        continue
                    at = time.time()
                    self._files.add(entry.name)
                    for v in pq.read_table(entry.path, columns=[self.column]).column(0).to_pylist():
                        self.seen.setdefault(int(v), at)
            time.sleep(0.02)

    def stop(self) -> None:
        self._halt.set()
        self.join(10)

    def wait_for(self, value: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while value not in self.seen and time.monotonic() < deadline:
            time.sleep(0.02)
        return value in self.seen


# ---- the pumps --------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    what: str
    setup: Callable[[Server, Path], tuple[Path, str]]  # -> (target folder, value column)
    feed: Callable[[Path, int], Iterator[tuple[int, float]]]  # -> (value expected, start time)
    pumps: tuple[str, ...]


def _setup_join(server: Server, data: Path) -> tuple[Path, str]:
    server.run(
        f"CREATE STREAM j_orders (ROWTIME TIMESTAMP, id BIGINT) WITH (format = 'json', path = '{data}/orders')",
        f"CREATE STREAM j_ships (ROWTIME TIMESTAMP, id BIGINT) WITH (format = 'json', path = '{data}/ships')",
        "CREATE STREAM j_out (ship_id BIGINT, order_id BIGINT)",
        "CREATE PUMP j_pump AS INSERT INTO j_out SELECT STREAM s.id, o.id FROM STREAM j_ships AS s "
        "JOIN STREAM j_orders OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS o ON o.id = s.id",
    )
    return server.location("j_out"), "ship_id"


def _feed_join(data: Path, gap: float, n: int) -> Iterator[tuple[int, float]]:
    for i in range(n):
        land(data / "orders", f"o{i:05d}", {"ROWTIME": now_rowtime(), "id": i})
        time.sleep(gap / 2)
        yield i, land(data / "ships", f"s{i:05d}", {"ROWTIME": now_rowtime(), "id": i})
        time.sleep(gap / 2)


def _setup_step(server: Server, data: Path) -> tuple[Path, str]:
    server.run(
        f"CREATE STREAM t_in (ROWTIME TIMESTAMP, id BIGINT) WITH (format = 'json', path = '{data}/ticks', "
        "lateness = '0 seconds')",
        "CREATE STREAM t_out (last_id BIGINT, n BIGINT)",
        "CREATE PUMP t_pump AS INSERT INTO t_out SELECT STREAM MAX(id), COUNT(*) FROM STREAM t_in "
        "GROUP BY STEP(t_in.ROWTIME BY INTERVAL '1' SECOND)",
    )
    return server.location("t_out"), "last_id"


def _feed_step(data: Path, gap: float, n: int) -> Iterator[tuple[int, float]]:
    # Row i+1 (at least a second after row i) closes row i's window.
    land(data / "ticks", "t00000", {"ROWTIME": now_rowtime(), "id": 0})
    for i in range(1, n + 1):
        time.sleep(gap)
        yield i - 1, land(data / "ticks", f"t{i:05d}", {"ROWTIME": now_rowtime(), "id": i})


def _setup_chain(server: Server, data: Path) -> tuple[Path, str]:
    server.run(
        f"CREATE STREAM c_in (ROWTIME TIMESTAMP, id BIGINT, v INT) WITH (format = 'json', path = '{data}/chain')",
        "CREATE STREAM c_mid (id BIGINT, v INT)",
        "CREATE STREAM c_out (id BIGINT, v2 INT)",
        "CREATE PUMP c_first AS INSERT INTO c_mid SELECT STREAM id, v FROM STREAM c_in WHERE v >= 0",
        "CREATE PUMP c_second AS INSERT INTO c_out SELECT STREAM id, v * 2 FROM STREAM c_mid",
    )
    return server.location("c_out"), "id"


def _feed_chain(data: Path, gap: float, n: int) -> Iterator[tuple[int, float]]:
    for i in range(n):
        yield i, land(data / "chain", f"c{i:05d}", {"ROWTIME": now_rowtime(), "id": i, "v": i})
        time.sleep(gap)


# fmt: off
SCENARIOS = [
    Scenario("join", "windowed join (RANGE 1 MINUTE), shipment file -> joined row", _setup_join,
             lambda d, n: _feed_join(d, 1.5, n), ("j_pump",)),
    Scenario("step", "STEP 1 SECOND aggregation, closing row's file -> window's row", _setup_step,
             lambda d, n: _feed_step(d, 1.05, n), ("t_pump",)),
    Scenario("chain", "two chained pumps, input file -> row of the second", _setup_chain,
             lambda d, n: _feed_chain(d, 1.0, n), ("c_first", "c_second")),
]
# fmt: on


# ---- measuring --------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass
class Result:
    config: str
    scenario: Scenario
    latencies: list[float]
    missing: int
    partitions: str
    load: tuple[float, float]
    last_batch_ms: list[object]


def measure(server: Server, work: Path, scenario: Scenario, rows: int, warmup: int) -> Result:
    data = work / f"data-{scenario.name}"
    for sub in ("orders", "ships", "ticks", "chain"):
        (data / sub).mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    target, column = scenario.setup(server, data)
    watcher = Watcher(target, column)
    watcher.start()
    starts: dict[int, float] = {}
    try:
        for value, started in scenario.feed(data, warmup + rows):
            starts[value] = started
            print(f"\r  {scenario.name}: {len(starts)}/{warmup + rows} rows fed, {len(watcher.seen)} seen",
                  end="", file=sys.stderr, flush=True)  # fmt: skip
        watcher.wait_for(max(starts), timeout=120)
    finally:
        watcher.stop()
        print(file=sys.stderr)
    measured = [v for v in sorted(starts) if v >= warmup]
    latencies = [watcher.seen[v] - starts[v] for v in measured if v in watcher.seen]
    shown = {str(k): v for k, v, *_ in server.run(f"DESCRIBE PUMP {scenario.pumps[0]}")}
    status = {r[0]: r for r in server.run("SHOW PUMPS")}
    last_batch = [status[p][9] for p in scenario.pumps if p in status]
    for p in scenario.pumps:
        server.run(f"DROP PUMP {p}")
    return Result("", scenario, latencies, len(measured) - len(latencies),
                  f"{shown.get('shuffle_partitions')} ({shown.get('shuffle_partitions_from')})",
                  (load_before, os.getloadavg()[0]), last_batch)  # fmt: skip


def report(results: list[Result], args: argparse.Namespace, command: str) -> str:
    lines = [
        f"Command: `{command}`  ",
        f"Date: {dt.date.today().isoformat()}; machine: {os.cpu_count()} cores, {platform.platform()}; "
        f"Python {platform.python_version()}; `overjoin server` defaults (local[2], trigger 1 s).",
        "",
        "Latency: from an input file becoming visible in the source's folder (renamed into place) to "
        "the row it causes being visible in the target stream's folder (polled every 20 ms), in "
        f"seconds; {args.rows} rows per pump after {args.warmup} warm-up rows, one file per row. "
        "Each configuration is a fresh server, pumps run one scenario at a time.",
        "",
        "| configuration | pump | rows | p50 | p90 | p99 | max | missing | shuffle partitions "
        "| last batch ms | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lat = r.latencies
        cells = [f"{percentile(lat, p):.2f}" for p in (50, 90, 99)] + [f"{max(lat):.2f}"] if lat else ["n/a"] * 4
        lines.append(
            f"| {r.config} | {r.scenario.name}: {r.scenario.what} | {len(lat)} | "
            + " | ".join(cells)
            + f" | {r.missing} | {r.partitions} | {', '.join(map(str, r.last_batch_ms))} "
            f"| {r.load[0]:.1f} -> {r.load[1]:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Writes the section '## Pump latency' of bench/RESULTS.md.")  # fmt: skip
    parser.add_argument("--rows", type=int, default=60, help="measured rows per pump (default 60)")
    parser.add_argument("--warmup", type=int, default=5, help="rows per pump left out first (default 5)")
    parser.add_argument("--scenarios", default="join,step,chain", help="which pumps (default join,step,chain)")
    parser.add_argument("--compare", default="spark.sql.shuffle.partitions=200", metavar="KEY=VALUE[;...]",
                        help="a second server configuration run side by side ('' for none; default: Spark's "
                        "200 shuffle partitions)")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print the results, leave RESULTS.md as it is")
    args = parser.parse_args(argv)
    chosen = [s for s in SCENARIOS if s.name in args.scenarios.split(",")]
    configs: list[tuple[str, list[str]]] = [("server defaults", [])]
    if args.compare:
        configs.append((f"--conf {args.compare}", args.compare.split(";")))
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="overjoin-latency-") as tmp:
        for label, conf in configs:
            print(f"{label}: starting overjoin server", file=sys.stderr)
            server = Server(Path(tmp) / f"state{len(results)}", conf).start()
            try:
                for scenario in chosen:
                    r = measure(server, Path(tmp) / f"work{len(results)}", scenario, args.rows, args.warmup)
                    r.config = label
                    results.append(r)
                    if r.latencies:
                        print(f"  {scenario.name}: p50 {percentile(r.latencies, 50):.2f} s, "
                              f"p99 {percentile(r.latencies, 99):.2f} s", file=sys.stderr)  # fmt: skip
            finally:
                server.stop()
    command = "python bench/bench_pump_latency.py " + " ".join(argv if argv is not None else sys.argv[1:])
    body = report(results, args, command.strip())
    print(body)
    if not args.no_write:
        replace_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
