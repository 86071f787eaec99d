"""Generated agreement: random join windows, intervals and durations through both parsers.

``tests/window_specs.py`` writes SELECT STREAM statements from the grammar of docs/syntax.md, with
the mistakes users make. The JVM parser and the Python validator must agree on each (see
``tests/spark/agreement.py`` for what agreeing means when a statement has several errors): the same
code, position and message parameters. Run more with ``OVERJOIN_AGREEMENT_SEEDS=20000``.
"""

from __future__ import annotations

import os
from collections import Counter

from tests.spark.agreement import agree, jvm_verdict, py_verdicts
from tests.window_specs import random_statement

SEEDS = int(os.environ.get("OVERJOIN_AGREEMENT_SEEDS", "600"))


def test_both_parsers_agree_on_generated_windows(spark):
    disagreements = []
    codes: Counter[str | None] = Counter()
    for seed in range(SEEDS):
        sql = random_statement(seed)
        jvm, py = jvm_verdict(spark, sql), py_verdicts(sql)
        codes[jvm[0] if jvm else None] += 1
        if not agree(jvm, py):
            disagreements.append(f"seed {seed}: {sql}\n  jvm: {jvm}\n  py:  {py}")
    assert not disagreements, f"{len(disagreements)} of {SEEDS} differ:\n" + "\n".join(disagreements[:10])
    # The generator must exercise both sides of the grammar: valid statements and most error codes.
    assert codes[None] >= SEEDS // 10
    assert len([c for c in codes if c]) >= 12, codes
