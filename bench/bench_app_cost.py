"""The cost of an application's pumps on one ``overjoin server``: CPU, latency and memory per pump count and rate.

A KDA application is several pumps sharing one server (issue 39). Each configuration here is a
fresh ``overjoin server`` started as a user starts it (its defaults: local[2], 1 s trigger), with
two KDA-style source streams over folders and N working pumps, a mix of the kinds applications
hold, taken in turn:

  filter   ``SELECT STREAM ... WHERE``, one source
  step     ``GROUP BY "k", STEP(ROWTIME BY INTERVAL '10' SECOND)``, one source
  sliding  ``AVG("v") OVER (PARTITION BY "k" RANGE INTERVAL '1' MINUTE PRECEDING)``, one source
  join     a windowed join of the two sources (``OVER (RANGE INTERVAL '1' MINUTE PRECEDING)``)

and, as configurations of their own, chains of 2 and 3 filter pumps (source -> s1 -> s2 -> s3),
and N idle pumps (the same mix, over sources that receive nothing).

A feeder writes, each second, one JSON file per source with ``--rates`` records, each with
``ROWTIME`` = the wall clock at writing, at a random moment of the second (the pumps trigger on
whole seconds: a fixed moment would measure one phase of the trigger only). A watcher polls each
target stream's folder every 50 ms and reads the ``ROWTIME`` of every new row: a row's latency is
the moment it was seen less its ROWTIME (for a filter or chain the input record's time; for a join
the later input's; for a STEP window its end; a sliding window's row also waits for the next record
to move the watermark past it). The first ``--warmup`` seconds of each configuration are left out.

CPU is the server's process tree (the launcher, ``spark-submit`` and the JVM) from /proc, over the
measured seconds, in cores (CPU seconds per second). Heap is the JVM's used heap after the run
(``jcmd GC.heap_info``); RSS the tree's resident memory. A configuration *keeps up* when its p90
latency is under 10 s and under 2% of the records it was fed are missing from a filter pump's
target at the end. ``--profile`` records a Java Flight Recorder profile of the JVM over the
measured seconds of the largest working configuration and reports where its samples fall.

Run:  python bench/bench_app_cost.py                                   (about 25 minutes)
      python bench/bench_app_cost.py --pumps 1,8 --rates 20 --seconds 40 --no-write   (a quick look)
      python bench/bench_app_cost.py --help
Writes the section ``## Application cost`` of bench/RESULTS.md. Needs overjoin installed with its
``server`` extra (PyHive, pyarrow) and a JDK's ``jcmd``/``jfr`` for heap and profile.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import replace_section
from bench_pump_latency import Server, percentile

SECTION = "Application cost"
KINDS = ("filter", "step", "sliding", "join")
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---- the server's process tree ------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc's parent ids)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes (and of their waited-for children)."""
    total = 0
    for p in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / CLK_TCK


def processes_started() -> int:
    """Processes started on the machine since boot (/proc/stat), for forks per second."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("processes "):
            return int(line.split()[1])
    return 0


def rss_mib(pids: list[int]) -> float:
    total = 0
    for p in pids:
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def jvm_pid(pids: list[int]) -> int | None:
    for p in pids:
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")
            if cmd and cmd[0].endswith(b"java"):
                return p
    return None


def heap_used_mib(pid: int | None) -> float | None:
    if pid is None or not shutil.which("jcmd"):
        return None
    out = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"total (\d+)K, used (\d+)K", out)
    return int(m.group(2)) / 1024 if m else None


# ---- the application ----------------------------------------------------------------------------


def source_ddl(name: str, folder: Path) -> str:
    return (
        f'CREATE OR REPLACE STREAM "{name}" (\n\t"id" BIGINT,\n\t"k" INTEGER,\n\t"v" DOUBLE)\n'
        f"WITH (format = 'json', path = '{folder}')"
    )


def pump_ddl(kind: str, i: int, a: str, b: str) -> list[str]:
    """The target stream and pump of pump ``i`` of ``kind`` over sources ``a`` and ``b``."""
    target, pump = f"OUT_{i:02d}", f"PUMP_{i:02d}"
    if kind == "filter":
        return [
            f'CREATE OR REPLACE STREAM "{target}" ("id" BIGINT, "v" DOUBLE)',
            f'CREATE OR REPLACE PUMP "{pump}" AS INSERT INTO "{target}"\n'
            f'SELECT STREAM "id", "v" FROM "{a}" WHERE "v" >= 0',
        ]
    if kind == "step":
        return [
            f'CREATE OR REPLACE STREAM "{target}" ("k" INTEGER, "n" BIGINT, "total" DOUBLE)',
            f'CREATE OR REPLACE PUMP "{pump}" AS INSERT INTO "{target}"\n'
            f'SELECT STREAM "k", COUNT(*) AS "n", SUM("v") AS "total" FROM "{a}"\n'
            f'GROUP BY "k", STEP("{a}".ROWTIME BY INTERVAL \'10\' SECOND)',
        ]
    if kind == "sliding":
        return [
            f'CREATE OR REPLACE STREAM "{target}" ("id" BIGINT, "k" INTEGER, "avg_v" DOUBLE)',
            f'CREATE OR REPLACE PUMP "{pump}" AS INSERT INTO "{target}"\n'
            f'SELECT STREAM "id", "k", AVG("v") OVER W1 AS "avg_v" FROM "{a}"\n'
            f"WINDOW W1 AS (PARTITION BY \"k\" RANGE INTERVAL '1' MINUTE PRECEDING)",
        ]
    if kind == "join":
        return [
            f'CREATE OR REPLACE STREAM "{target}" ("id" BIGINT, "other" BIGINT)',
            f'CREATE OR REPLACE PUMP "{pump}" AS INSERT INTO "{target}"\n'
            f'SELECT STREAM x."id", y."id" AS "other" FROM "{a}" AS x\n'
            f'JOIN "{b}" OVER (RANGE INTERVAL \'1\' MINUTE PRECEDING) AS y ON x."k" = y."k" AND x."id" = y."id"',
        ]
    raise ValueError(kind)


def chain_ddl(length: int, a: str) -> tuple[list[str], str]:
    """``length`` filter pumps in a chain from source ``a``; the statements and the last target."""
    stmts, prev = [], a
    for i in range(1, length + 1):
        target = f"CHAIN_{i}"
        stmts += [
            f'CREATE OR REPLACE STREAM "{target}" ("id" BIGINT, "v" DOUBLE)',
            f'CREATE OR REPLACE PUMP "CHAIN_PUMP_{i}" AS INSERT INTO "{target}"\n'
            f'SELECT STREAM "id", "v" FROM "{prev}" WHERE "v" >= 0',
        ]
        prev = target
    return stmts, prev


class Feeder(threading.Thread):
    """Each second, one file of ``rate`` records into each folder; ids count up across sources.

    Each second's files are written at a random moment of that second (seeded): the pumps trigger
    on whole seconds, so files written at a fixed moment would meet every trigger at the same phase,
    and the latency measured would be that phase's, not the spread of waits a record arriving at any
    time sees."""

    def __init__(self, folders: list[Path], rate: int, seed: int = 39) -> None:
        super().__init__(daemon=True)
        self.folders, self.rate = folders, rate
        self.fed = 0
        self._halt = threading.Event()
        self._rng = random.Random(seed)

    def run(self) -> None:
        n, second = 0, time.monotonic()
        while not self._halt.is_set():
            self._halt.wait(max(0.0, second + self._rng.random() - time.monotonic()))
            if self._halt.is_set():
                break
            for folder in self.folders:
                now = dt.datetime.now(dt.timezone.utc)
                lines = []
                for j in range(self.rate):
                    t = now + dt.timedelta(microseconds=j)
                    lines.append(json.dumps({"ROWTIME": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "id": self.fed + j,
                                             "k": (self.fed + j) % 50, "v": float(j % 100)}))  # fmt: skip
                tmp = folder / f".f{n:06d}.tmp"
                tmp.write_text("\n".join(lines) + "\n")
                os.replace(tmp, folder / f"f{n:06d}.json")
            self.fed += self.rate
            n += 1
            second += 1.0
            self._halt.wait(max(0.0, second - time.monotonic()))

    def stop(self) -> None:
        self._halt.set()
        self.join(10)


class RowtimeWatcher(threading.Thread):
    """Polls target folders; per target, (seen - ROWTIME) of each new row, and its row count."""

    def __init__(self, folders: dict[str, Path]) -> None:
        super().__init__(daemon=True)
        self.folders = folders
        self.latencies: dict[str, list[tuple[float, float]]] = {name: [] for name in folders}  # (seen, latency)
        self.rows: Counter[str] = Counter()
        self._files: set[str] = set()
        self._halt = threading.Event()

    def run(self) -> None:
        import pyarrow.parquet as pq

        while not self._halt.is_set():
            for name, folder in self.folders.items():
                with contextlib.suppress(FileNotFoundError):
                    for entry in os.scandir(folder):
                        if entry.path in self._files or not entry.name.endswith(".parquet"):
                            continue
                        seen = time.time()
                        self._files.add(entry.path)
                        with contextlib.suppress(Exception):  # a file still being written: read next round
                            col = pq.read_table(entry.path, columns=["ROWTIME"]).column(0).to_pylist()
                            self.rows[name] += len(col)
                            for t in col:
                                ts = (
                                    t.replace(tzinfo=dt.timezone.utc).timestamp() if t.tzinfo is None else t.timestamp()
                                )
                                self.latencies[name].append((seen, seen - ts))
            self._halt.wait(0.05)

    def stop(self) -> None:
        self._halt.set()
        self.join(10)


# ---- one configuration --------------------------------------------------------------------------


@dataclass
class Config:
    label: str
    pumps: int  # working pumps (or chain length, or idle pumps)
    rate: int
    shape: str  # "mix", "chain", "idle"
    conf: list[str] = field(default_factory=list)  # the server's --conf settings


@dataclass
class Outcome:
    config: Config
    cores: float
    latency: dict[str, list[float]]  # per pump kind (or "chain")
    heap_mib: float | None
    rss_mib: float
    fed: int  # records the filter pumps were fed in all (each reads one source)
    filter_rows: int  # rows in their targets
    profile: list[tuple[str, int]] = field(default_factory=list)
    load: tuple[float, float] = (0.0, 0.0)
    forks: float = 0.0  # processes started per second on the machine (Hadoop's chmod among them)

    def keeps_up(self) -> bool:
        every = [x for v in self.latency.values() for x in v]
        if self.config.shape == "idle":
            return True
        if not every:
            return False
        missing_ok = self.config.shape != "mix" or self.filter_rows >= 0.98 * self.fed
        return percentile(every, 90) < 10.0 and missing_ok


def run_config(
    work: Path, cfg: Config, warmup: float, seconds: float, profile: bool, keep_profile: Path | None = None
) -> Outcome:
    data = work / "data"
    folders = [data / "a", data / "b"]
    for f in folders:
        f.mkdir(parents=True, exist_ok=True)
    server = Server(work / "state", cfg.conf).start()
    try:
        assert server.proc is not None
        stmts = [source_ddl("SRC_A", folders[0]), source_ddl("SRC_B", folders[1])]
        targets: dict[str, str] = {}  # target stream -> kind
        if cfg.shape == "chain":
            chain, last = chain_ddl(cfg.pumps, "SRC_A")
            stmts += chain
            targets[last] = "chain"
        else:
            for i in range(cfg.pumps):
                kind = KINDS[i % len(KINDS)]
                stmts += pump_ddl(kind, i, "SRC_A" if i % 2 == 0 else "SRC_B", "SRC_B" if i % 2 == 0 else "SRC_A")
                targets[f"OUT_{i:02d}"] = kind
        server.run(*stmts)
        locations = {t: server.location(f"`{t}`") for t in targets}
        watcher = RowtimeWatcher(locations)
        watcher.start()
        feeder = Feeder(folders, cfg.rate) if cfg.shape != "idle" else None
        if feeder:
            feeder.start()
        time.sleep(warmup)
        pids = tree(server.proc.pid)
        jvm = jvm_pid(pids)
        jfr = work / "profile.jfr"
        if profile and jvm and shutil.which("jcmd"):
            subprocess.run(["jcmd", str(jvm), "JFR.start", "name=appcost", "settings=profile", f"filename={jfr}"],
                           capture_output=True, timeout=60)  # fmt: skip
        load0 = os.getloadavg()[0]
        forks0 = processes_started()
        t0, c0 = time.monotonic(), cpu_seconds(pids)
        start_wall = time.time()
        for s in range(int(seconds)):
            time.sleep(1)
            print(f"\r  {cfg.label}: {s + 1}/{int(seconds)} s measured", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        pids = tree(server.proc.pid)
        elapsed = time.monotonic() - t0
        cores = (cpu_seconds(pids) - c0) / elapsed
        forks = (processes_started() - forks0) / elapsed
        load1 = os.getloadavg()[0]
        fed = 0
        if feeder:
            feeder.stop()
            fed = feeder.fed
        samples: list[tuple[str, int]] = []
        if profile and jvm and shutil.which("jcmd"):
            subprocess.run(["jcmd", str(jvm), "JFR.stop", "name=appcost"], capture_output=True, timeout=120)
            samples = summarize_profile(jfr)
            if keep_profile is not None and jfr.exists():
                shutil.copyfile(jfr, keep_profile)
        time.sleep(5)  # rows of the last records
        watcher.stop()
        latency: dict[str, list[float]] = {}
        for target, kind in targets.items():
            latency.setdefault(kind, []).extend(lat for seen, lat in watcher.latencies[target] if seen >= start_wall)
        filter_rows = sum(watcher.rows[t] for t, k in targets.items() if k == "filter")
        n_filters = sum(1 for k in targets.values() if k == "filter")
        return Outcome(cfg, cores, latency, heap_used_mib(jvm), rss_mib(pids), fed * n_filters, filter_rows,
                       samples, (load0, load1), forks)  # fmt: skip
    finally:
        server.stop()


def summarize_profile(jfr: Path) -> list[tuple[str, int]]:
    """The JFR file's execution samples by what they run (a group of classes on the stack, else the
    first class outside the JDK and Scala's library) and, prefixed ``thread:``, by thread kind."""
    jfr_tool = shutil.which("jfr")
    if not jfr_tool or not jfr.exists():
        return []
    # jfr print shows 5 frames of a stack unless told more: too few to see what a sample is part of.
    out = subprocess.run([jfr_tool, "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample",
                          str(jfr)], capture_output=True, text=True, timeout=600).stdout  # fmt: skip
    try:
        events = json.loads(out)["recording"]["events"]
    except (ValueError, KeyError):
        return []
    groups: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    for e in events:
        values = e.get("values", {})
        frames = values.get("stackTrace", {}).get("frames", [])
        names = [f["method"]["type"]["name"].replace("/", ".") for f in frames if "method" in f]
        groups[classify(names)] += 1
        thread = (values.get("sampledThread") or {}).get("javaName") or "?"
        threads["thread: " + thread_kind(thread)] += 1
    return groups.most_common() + threads.most_common()


def thread_kind(name: str) -> str:
    """A thread's name without the numbers and query ids that tell threads of one kind apart."""
    if name.startswith("stream execution thread"):
        return "a query's micro-batch thread (planning, logs, commits, the driver's part)"
    if name.startswith("Executor task launch worker"):
        return "executor tasks"
    return re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|\d+", "", name).rstrip("-# ") or name


#: (group, substrings of a frame's class) in priority order: the first group any frame of the
#: stack (top first) falls in names the sample.
GROUPS = [
    ("state store (load, commit, maintenance)", ("state.HDFSBackedStateStore", "state.RocksDB", "state.StateStore")),
    (
        "checkpoint logs (offsets, commits, metadata)",
        ("HDFSMetadataLog", "OffsetSeqLog", "CommitLog", "CheckpointFileManager"),
    ),
    (
        "Hadoop configurations copied, serialized, broadcast",
        ("hadoop.conf.Configuration", "SerializableConfiguration", "WritableUtils", "hadoop.io.Text"),
    ),
    ("code generation (projections made per task)", ("expressions.codegen", "createCodeGeneratedObject")),
    ("source listing and reading", ("FileStreamSource", "InMemoryFileIndex", "json.", "datasources.FileScan")),
    (
        "query planning and analysis",
        (
            "catalyst.analysis",
            "catalyst.optimizer",
            "catalyst.rules",
            "execution.QueryExecution",
            "IncrementalExecution",
            "SparkPlanner",
            "codegen",
        ),
    ),
    ("task scheduling and shuffle", ("scheduler.", "shuffle.", "storage.BlockManager", "rpc.", "network.")),
    ("overjoin operators", ("io.overjoin.execution", "sql.overjoin.")),
    ("sink writes (Parquet)", ("parquet.", "FileFormatWriter", "FileStreamSink")),
    ("progress and metrics", ("ProgressReporter", "StreamingQueryListener", "metric.")),
]


def classify(frames: list[str]) -> str:
    for frame in frames:
        for group, needles in GROUPS:
            if any(n in frame for n in needles):
                return group
    own = [f for f in frames if not f.startswith(("java.", "javax.", "jdk.", "sun.", "scala."))]
    return "other: " + (own[0] if own else frames[0] if frames else "?")


# ---- report -------------------------------------------------------------------------------------


def cell(values: list[float]) -> str:
    if not values:
        return "-"
    return " / ".join(f"{percentile(values, p):.2f}" for p in (50, 90, 99))


def report(outcomes: list[Outcome], command: str, args: argparse.Namespace) -> str:
    lines = [
        f"Command: `{command}`  ",
        f"Date: {dt.date.today().isoformat()}; machine: {os.cpu_count()} cores, {platform.platform()}; "
        f"Python {platform.python_version()}; `overjoin server` defaults (local[2], trigger 1 s).",
        "",
        f"Each row is a fresh server; {args.warmup:.0f} s of warm-up, then {args.seconds:.0f} s measured. "
        "Records per second are per source (two sources). Latency: the moment a row was seen in its "
        "target's folder less its ROWTIME, seconds, p50 / p90 / p99, per pump kind over all its pumps. "
        "Cores: CPU seconds per second of the server's process tree. Forks/s: processes started on "
        "the whole machine per second (/proc/stat). The machine's load average before and after "
        "shows what else ran.",
        "",
        "| configuration | pumps | records/s | cores | cores/pump | filter | step | sliding | join | chain "
        "| heap MiB | RSS MiB | forks/s | keeps up | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        c = o.config
        per = o.cores / c.pumps if c.pumps else 0.0
        heap = f"{o.heap_mib:.0f}" if o.heap_mib is not None else "n/a"
        lines.append(
            f"| {c.label} | {c.pumps} | {c.rate if c.shape != 'idle' else 0} | {o.cores:.2f} | {per:.3f} | "
            + " | ".join(cell(o.latency.get(k, [])) for k in (*KINDS, "chain"))
            + f" | {heap} | {o.rss_mib:.0f} | {o.forks:.0f} | {'yes' if o.keeps_up() else 'no'} "
            f"| {o.load[0]:.1f} -> {o.load[1]:.1f} |"
        )
    profiled = [o for o in outcomes if o.profile]
    for o in profiled:
        total = sum(n for g, n in o.profile if not g.startswith("thread: "))
        lines += ["", f"Profile of `{o.config.label}` (JFR execution samples of the JVM over the measured "
                  f"seconds, {total} samples, 64 frames deep; each sample counted once, in the group of its "
                  "topmost frame that is in one):", "",
                  "| where | samples | share |", "|---|---|---|"]  # fmt: skip
        by_what = [(g, n) for g, n in o.profile if not g.startswith("thread: ")]
        by_thread = [(g.removeprefix("thread: "), n) for g, n in o.profile if g.startswith("thread: ")]
        lines += [f"| {g} | {n} | {n / total:.0%} |" for g, n in by_what[:14]]
        lines += ["", "The same samples by thread:", "", "| thread | samples | share |", "|---|---|---|"]
        lines += [f"| {g} | {n} | {n / total:.0%} |" for g, n in by_thread[:8]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="Writes the section '## Application cost' of bench/RESULTS.md."
    )
    parser.add_argument("--pumps", default="1,8,20", help="working pump counts (default 1,8,20)")
    parser.add_argument("--rates", default="1,100,1000", help="records per second per source (default 1,100,1000)")
    parser.add_argument("--chains", default="2,3", help="chain lengths, measured at the first rate ('' for none)")
    parser.add_argument("--idle", type=int, default=20, help="idle pumps, measured apart (0 for none; default 20)")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds before measuring (default 30)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured (default 60)")
    parser.add_argument("--profile", action="store_true", help="a JFR profile of the largest working configuration")
    parser.add_argument("--keep-profile", type=Path, metavar="FILE", help="with --profile: keep the recording in FILE")
    parser.add_argument("--compare", default="", metavar="KEY=VALUE[;...]",
                        help="also run each configuration on a server with these settings, alternating with "
                        "the defaults (side by side in one run)")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print the results, leave RESULTS.md as it is")
    parser.add_argument("--section", default=SECTION,
                        help=f"the section of bench/RESULTS.md to write (default '{SECTION}')")  # fmt: skip
    args = parser.parse_args(argv)
    pumps = [int(x) for x in args.pumps.split(",") if x]
    rates = [int(x) for x in args.rates.split(",") if x]
    configs = [Config(f"{n} pumps at {r}/s", n, r, "mix") for r in rates for n in pumps]
    configs += [Config(f"chain of {n} at {rates[0]}/s", n, rates[0], "chain") for n in
                (int(x) for x in args.chains.split(",") if x)]  # fmt: skip
    if args.idle:
        configs.append(Config(f"{args.idle} idle pumps", args.idle, 0, "idle"))
    if args.compare:
        settings = [kv for kv in args.compare.split(";") if kv]
        configs = [
            c2
            for c in configs
            for c2 in (c, Config(f"{c.label}, --conf {args.compare}", c.pumps, c.rate, c.shape, settings))
        ]
    biggest = max((c for c in configs if c.shape == "mix"), key=lambda c: (c.pumps, c.rate), default=None)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="overjoin-appcost-") as tmp:
        for i, cfg in enumerate(configs):
            print(f"{cfg.label}: starting overjoin server", file=sys.stderr)
            profiled = args.profile and cfg is biggest
            o = run_config(Path(tmp) / f"c{i}", cfg, args.warmup, args.seconds, profiled, args.keep_profile)
            outcomes.append(o)
            every = [x for v in o.latency.values() for x in v]
            print(f"  {o.cores:.2f} cores; p50 {percentile(every, 50) if every else float('nan'):.2f} s",
                  file=sys.stderr)  # fmt: skip
    command = "python bench/bench_app_cost.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    body = report(outcomes, command.strip(), args)
    print(body)
    if not args.no_write:
        replace_section(args.section, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
