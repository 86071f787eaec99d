"""The long form of the parser fuzzer: many mutated statements through both parsers.

Usage::

    .venv/bin/python bench/fuzz.py --n 100000 [--start 0] [--no-write]

Each statement is a mutation of a corpus entry (``tests/fuzz_sql.py``); each parser must parse it
or refuse it with an error that carries a condition, within 5 s (``tests/fuzz_checks.py``). The
counts, the time per statement and every failure go to the ``Parser fuzzing`` section of
``bench/RESULTS.md``; each failing statement is also written to ``bench/out/fuzz/`` so that it can
be made a corpus entry once it is fixed. Progress is printed every 1,000 statements. Exits 1 when
any statement crashed or hung a parser.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _results import replace_section

from tests.fuzz_checks import jvm_outcome, py_outcome
from tests.fuzz_sql import mutate

OUT = ROOT / "bench" / "out" / "fuzz"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="statements (default 10,000)")
    parser.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = parser.parse_args(argv)

    import overjoin

    spark = overjoin.session(**{"spark.master": "local[1]", "spark.ui.enabled": "false", "spark.driver.memory": "4g"})
    spark.sparkContext.setLogLevel("OFF")
    jvm_outcome(spark, "SELECT 1")
    counts: dict[str, Counter[str]] = {"jvm": Counter(), "validator": Counter()}
    times: dict[str, list[float]] = {"jvm": [], "validator": []}
    failures: list[str] = []
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.time()
    for seed in range(args.start, args.start + args.n):
        sql = mutate(seed)
        checks = (("jvm", lambda sql=sql: jvm_outcome(spark, sql)), ("validator", lambda sql=sql: py_outcome(sql)))
        for name, check in checks:
            t0 = time.perf_counter()
            kind, what = check()
            times[name].append(time.perf_counter() - t0)
            counts[name][kind] += 1
            if kind in ("crash", "timeout"):
                failures.append(f"seed {seed}, {name}: {kind}: {what[:200]}")
                (OUT / f"{name}-{seed}.sql").write_text(sql, encoding="utf-8")
        done = seed - args.start + 1
        if done % 1000 == 0:
            print(
                f"{done:,} / {args.n:,} statements, {time.time() - started:.0f} s, {len(failures)} failures", flush=True
            )
    spark.stop()

    lines = [
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `.venv/bin/python bench/fuzz.py --n {args.n} --start {args.start}`",
        f"- machine: {platform.machine()}, Python {platform.python_version()}; "
        f"wall time {time.time() - started:,.0f} s",
        "",
        "| parser | parsed | refused with a condition | crashed | hung (> 5 s) | median ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("jvm", "validator"):
        c, t = counts[name], times[name]
        lines.append(
            f"| {name} | {c['ok']:,} | {c['error']:,} | {c['crash']:,} | {c['timeout']:,} | "
            f"{statistics.median(t) * 1000:.1f} | {_percentile(t, 0.99) * 1000:.0f} | {max(t) * 1000:,.0f} |"
        )
    lines += ["", "Failures: " + ("none." if not failures else f"{len(failures)}, in `bench/out/fuzz/`:")]
    lines += [f"- {f}" for f in failures[:20]]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        replace_section("Parser fuzzing", body)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
