"""Does a long-running ``overjoin server`` run out of code cache or metaspace?

Every micro-batch of every pump plans its query again, and Spark compiles generated code for it
(Janino classes, then JIT-compiled methods). A server that runs pumps for weeks must unload what
it no longer uses, or its code cache fills ("CodeCache is full. Compiler has been disabled": the
JVM then interprets everything) or its metaspace grows without end. This starts a server the way
a user starts it (the JVM's defaults: C2, a 240 MB code cache), runs a KDA-like application on
``rate`` sources (a windowed join, a sliding-window aggregate, a ``STEP`` aggregate, each a pump
triggering every second), and samples the server's JVM every ``--sample-seconds``:

  code cache   used, summed over the code heaps, and how often it was full
               (``jcmd <pid> Compiler.codecache``: ``used=`` and ``full_count=``)
  metaspace    used (``jstat -gc``)
  classes      loaded and unloaded (``jstat -class``)
  batches      micro-batches committed by the pumps (their checkpoints' ``commits``)

The report gives the samples and the growth per thousand micro-batches over the second half of
the run (the first half includes the warm-up). A flat second half means what is generated is
also unloaded.

Run:  python bench/soak_server.py                       (30 minutes)
      python bench/soak_server.py --minutes 5 --no-write   (a quick look)
Writes the section ``## Server soak`` of bench/RESULTS.md (``## Server soak, N MB of code cache``
with ``--code-cache-mb N``). Needs overjoin installed with its ``server`` extra (PyHive).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import replace_section
from bench_pump_latency import Server

SECTION = "Server soak"


@dataclass
class Sample:
    seconds: float
    batches: int
    code_cache_mb: float
    code_cache_full: int
    metaspace_mb: float
    classes_loaded: int
    classes_unloaded: int


def _app(rows_per_second: int) -> list[str]:
    """The application: one rate source per pump (a source is read by one query), three pumps."""
    rate = f"WITH (format = 'rate', rowsPerSecond = '{rows_per_second}')"
    return [
        f"CREATE STREAM soak_orders (value BIGINT) {rate}",
        f"CREATE STREAM soak_ships (value BIGINT) {rate}",
        f"CREATE STREAM soak_ticks (value BIGINT) {rate}",
        f"CREATE STREAM soak_steps_in (value BIGINT) {rate}",
        "CREATE STREAM soak_joined (ship BIGINT, order_id BIGINT)",
        "CREATE STREAM soak_sliding (k BIGINT, n BIGINT)",
        "CREATE STREAM soak_steps (n BIGINT)",
        "CREATE PUMP soak_join AS INSERT INTO soak_joined SELECT STREAM s.value, o.value FROM STREAM soak_ships AS s "
        "JOIN STREAM soak_orders OVER (RANGE INTERVAL '10' SECOND PRECEDING) AS o ON o.value % 100 = s.value % 100",
        "CREATE PUMP soak_window AS INSERT INTO soak_sliding SELECT STREAM value % 10, "
        "COUNT(*) OVER (PARTITION BY value % 10 RANGE INTERVAL '10' SECOND PRECEDING) FROM STREAM soak_ticks",
        "CREATE PUMP soak_step AS INSERT INTO soak_steps SELECT STREAM COUNT(*) FROM STREAM soak_steps_in "
        "GROUP BY STEP(soak_steps_in.ROWTIME BY INTERVAL '10' SECOND)",
    ]


def _code_cache(jvm: int) -> tuple[float, int]:
    """MB of code cache used, summed over its heaps (``used=``, not ``max_used=``), and how many
    times it was full (``full_count``)."""
    out = subprocess.run(["jcmd", str(jvm), "Compiler.codecache"], capture_output=True, text=True).stdout
    used = [int(kb) for kb in re.findall(r"\sused=(\d+)Kb", out)]
    if not used:
        raise RuntimeError(f"jcmd Compiler.codecache gave nothing usable: {out[:500]}")
    return sum(used) / 1024, sum(int(n) for n in re.findall(r"full_count=(\d+)", out))


def _jstat(jvm: int, option: str) -> dict[str, str]:
    out = subprocess.run(["jstat", option, str(jvm)], capture_output=True, text=True).stdout.split("\n")
    return dict(zip(out[0].split(), out[1].split()))


def _batches(state: Path) -> int:
    """Micro-batches committed, summed over the pumps: each checkpoint's newest commit id + 1 (Spark
    deletes all but the last ``minBatchesToRetain`` commit files)."""
    total = 0
    for commits in state.rglob("commits"):
        ids = [int(c.name) for c in commits.iterdir() if c.name.isdigit()]
        total += max(ids) + 1 if ids else 0
    return total


def sample(jvm: int, state: Path, t0: float) -> Sample:
    classes = _jstat(jvm, "-class")
    gc = _jstat(jvm, "-gc")
    used, full = _code_cache(jvm)
    return Sample(
        seconds=time.monotonic() - t0,
        batches=_batches(state),
        code_cache_mb=used,
        code_cache_full=full,
        metaspace_mb=float(gc["MU"]) / 1024,
        classes_loaded=int(classes["Loaded"]),
        classes_unloaded=int(classes["Unloaded"]),
    )


def growth(samples: list[Sample]) -> dict[str, float]:
    """Growth per 1,000 micro-batches between the middle sample and the last."""
    a, b = samples[len(samples) // 2], samples[-1]
    per = 1000 / max(1, b.batches - a.batches)
    return {
        "code cache MB": (b.code_cache_mb - a.code_cache_mb) * per,
        "metaspace MB": (b.metaspace_mb - a.metaspace_mb) * per,
        "classes (net)": ((b.classes_loaded - b.classes_unloaded) - (a.classes_loaded - a.classes_unloaded)) * per,
    }


def report(
    samples: list[Sample], args: argparse.Namespace, command: str, pumps: list[tuple[str, str]], full: int
) -> str:
    cache = (
        f"{args.code_cache_mb} MB of code cache" if args.code_cache_mb else "the JVM's defaults (240 MB of code cache)"
    )
    lines = [
        f"`{command}` on {platform.node()} ({platform.machine()}, Python {platform.python_version()}), "
        f"{time.strftime('%Y-%m-%d')}. A server with {cache}, three pumps on `rate` sources "
        f"({args.rows_per_second} rows/s each): a windowed join, a sliding-window `COUNT(*) OVER`, a `STEP` aggregate.",
        "",
        "| minute | micro-batches | code cache used MB | times full | metaspace used MB | classes loaded | unloaded |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in samples:
        lines.append(
            f"| {s.seconds / 60:.1f} | {s.batches:,} | {s.code_cache_mb:.1f} | {s.code_cache_full} | "
            f"{s.metaspace_mb:.1f} | {s.classes_loaded:,} | {s.classes_unloaded:,} |"
        )
    g = growth(samples)
    lines += [
        "",
        "Growth per 1,000 micro-batches over the second half: "
        + ", ".join(f"{k} {v:+.2f}" for k, v in g.items())
        + ".",
        "Pumps at the end: " + ", ".join(f"{name} {state}" for name, state in pumps) + ".",
        f"'CodeCache is full' warnings in the server's output: {full}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=30.0, help="how long the pumps run (default 30)")
    p.add_argument("--sample-seconds", type=float, default=60.0, help="seconds between samples (default 60)")
    p.add_argument("--rows-per-second", type=int, default=50, help="rows per second of each rate source (default 50)")
    p.add_argument(
        "--code-cache-mb",
        type=int,
        default=0,
        help="reserve this much code cache in the server's JVM (JAVA_TOOL_OPTIONS), to see it full; "
        "default: the JVM's own (240 MB)",
    )
    p.add_argument("--no-write", action="store_true", help="print the report; do not write bench/RESULTS.md")
    args = p.parse_args(argv)
    command = "python bench/soak_server.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    work = Path(tempfile.mkdtemp(prefix="overjoin-soak-"))
    # SIGTERM (a stopped run) stops the server too, through the `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.code_cache_mb:
        os.environ["JAVA_TOOL_OPTIONS"] = f"-XX:ReservedCodeCacheSize={args.code_cache_mb}m"
    server = Server(work / "state", []).start()
    try:
        assert server.proc is not None
        # The launcher execs spark-submit, which execs the JVM: the server's PID is the JVM's
        # (docs/server.md).
        jvm = server.proc.pid
        server.run(*_app(args.rows_per_second))
        t0 = time.monotonic()
        samples = [sample(jvm, work / "state", t0)]
        while samples[-1].seconds < args.minutes * 60:
            time.sleep(args.sample_seconds)
            if server.proc.poll() is not None:
                raise RuntimeError(f"the server died; see {work / 'state.stderr'}")
            samples.append(sample(jvm, work / "state", t0))
            s = samples[-1]
            print(f"{s.seconds / 60:5.1f} min: {s.batches:,} batches, code cache {s.code_cache_mb:.1f} MB "
                  f"(full {s.code_cache_full} times), metaspace {s.metaspace_mb:.1f} MB, "
                  f"classes {s.classes_loaded:,} loaded, "
                  f"{s.classes_unloaded:,} unloaded", flush=True)  # fmt: skip
        pumps = [(str(r[0]), str(r[1])) for r in server.run("SHOW PUMPS")]
    finally:
        server.stop()
    stderr = (work / "state.stderr").read_text(errors="replace") if (work / "state.stderr").exists() else ""
    full = stderr.count("CodeCache is full")
    text = report(samples, args, command, pumps, full)
    print(text)
    if not args.no_write:
        title = f"{SECTION}, {args.code_cache_mb} MB of code cache" if args.code_cache_mb else SECTION
        replace_section(title, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
