"""Validator throughput: validate the whole shared corpus repeatedly and report statements/s.

Usage::

    PYTHONPATH=python python bench/bench_validate.py [--rounds N] [--no-write]

Each round validates every corpus entry (with its schemas and options, as the corpus test does).
The result goes to the ``## Validator throughput`` section of ``bench/RESULTS.md`` (created if
missing; other sections are kept). The target is at least 1,000 statements/s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT))

from tests.corpus_loader import load_corpus

sys.path.insert(0, str(ROOT / "bench"))
from _results import replace_section

from overjoin.validator import parse_statements, validate

__all__ = ["main", "measure", "update_results"]

SECTION = "## Validator throughput"
TARGET = 1000.0


def measure(rounds: int) -> dict[str, float]:
    """Validate the corpus ``rounds`` times (after one warm-up round); return the timings."""
    entries = load_corpus()
    statements = sum(len(parse_statements(e.sql, None, e.double_quoted_identifiers)) or 1 for e in entries)

    def one_round() -> float:
        start = time.perf_counter()
        for entry in entries:
            validate(entry.sql, entry.schemas, double_quoted_identifiers=entry.double_quoted_identifiers)
        return time.perf_counter() - start

    one_round()  # warm-up: imports, dialect construction
    times = [one_round() for _ in range(rounds)]
    median = statistics.median(times)
    return {
        "entries": float(len(entries)),
        "statements": float(statements),
        "rounds": float(rounds),
        "median_s": median,
        "best_s": min(times),
        "per_s_median": statements / median,
        "per_s_best": statements / min(times),
    }


def update_results(path: Path, command: str, result: dict[str, float]) -> None:
    """Write (or replace) the throughput section of ``path``, keeping its other sections."""
    verdict = "meets" if result["per_s_median"] >= TARGET else "MISSES"
    body = "\n".join(
        [
            f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- command: `{command}`",
            f"- machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.machine()}",
            f"- corpus: {int(result['entries'])} files, {int(result['statements'])} statements; "
            f"{int(result['rounds'])} rounds after a warm-up",
            f"- median round: {result['median_s'] * 1000:.1f} ms = **{result['per_s_median']:,.0f} statements/s** "
            f"(best round: {result['per_s_best']:,.0f} statements/s)",
            f"- target: >= {TARGET:,.0f} statements/s: {verdict} it",
        ]
    )
    replace_section(SECTION.removeprefix("## "), body, path)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 1 when the median throughput misses the target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="timed rounds (default 10)")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md",
                        help="markdown file to update (default bench/RESULTS.md)")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print only, do not update the results file")
    args = parser.parse_args(argv)
    result = measure(args.rounds)
    print(f"{int(result['statements'])} statements x {args.rounds} rounds: median {result['median_s'] * 1000:.1f} ms, "
          f"{result['per_s_median']:,.0f} statements/s (best {result['per_s_best']:,.0f})")  # fmt: skip
    if not args.no_write:
        command = "PYTHONPATH=python python bench/bench_validate.py" + (
            f" --rounds {args.rounds}" if args.rounds != 10 else ""
        )
        update_results(args.results, command, result)
        print(f"updated {args.results}")
    return 0 if result["per_s_median"] >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
