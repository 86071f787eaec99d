"""Fuzzing the Python validator: it returns diagnostics for every mutated statement, never raises.

Same statements as the JVM fuzz test (``tests/fuzz_sql.py``); an internal error (OJ900) counts as
a crash, and so does taking more than 5 s. ``OVERJOIN_FUZZ_N`` / ``OVERJOIN_FUZZ_START`` run others.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pytest

from tests.corpus_loader import load_fuzz_regressions
from tests.fuzz_checks import py_outcome
from tests.fuzz_sql import mutate
from tests.seeds import count

START = int(os.environ.get("OVERJOIN_FUZZ_START", "0"))
N = count("OVERJOIN_FUZZ_N", 1000)


def test_the_validator_survives_mutated_statements() -> None:
    outcomes: Counter[str] = Counter()
    failures = []
    for seed in range(START, START + N):
        sql = mutate(seed)
        kind, what = py_outcome(sql)
        outcomes[kind] += 1
        if kind in ("crash", "timeout"):
            failures.append(f"seed {seed}: {kind}: {what}\n  {sql[:300]!r}")
    assert not failures, f"{len(failures)} of {N} statements broke the validator:\n" + "\n".join(failures[:10])
    assert outcomes["ok"] >= N // 20 and outcomes["error"] >= N // 2, outcomes


def test_nesting_too_deep_is_reported_not_raised() -> None:
    import overjoin

    found = overjoin.validate("SELECT " + "(" * 20000 + "1" + ")" * 20000)
    assert [d.code for d in found if d.severity == "error"][:1] in (["OJ002"], ["OJ001"])


@pytest.mark.parametrize(("name", "sql"), load_fuzz_regressions(), ids=lambda v: v if v.endswith(".sql") else "")
def test_statements_that_once_crashed_the_validator(name: str, sql: str) -> None:
    kind, what = py_outcome(sql, timeout=30)
    assert kind in ("ok", "error"), f"{name}: {kind}: {what}"
