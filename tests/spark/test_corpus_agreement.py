"""One corpus, two parsers: the JVM parser (inside Spark) agrees with the Python validator on
which corpus statements are valid, and on where the error is wherever the JVM reports a position.

Schema-level errors (OJ2xx) need table schemas the JVM parser does not have: those statements are
syntactically valid, so the JVM parser must accept them (it reports the same problems later, at
analysis). Disagreements are bugs, not skips.
"""

from __future__ import annotations

import pytest

from tests.corpus_loader import load_corpus
from tests.spark.agreement import jvm_verdict, py_verdict, same

ENTRIES = load_corpus()


def jvm_parse(spark, entry):
    """The JVM parser's verdict on a corpus entry (see ``tests/spark/agreement.py``)."""
    return jvm_verdict(spark, entry.sql, entry.double_quoted_identifiers)


def test_corpus_has_at_least_150_entries():
    assert len(ENTRIES) >= 150


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_jvm_parser_agrees_with_the_corpus(spark, entry):
    result = jvm_parse(spark, entry)
    if entry.valid or entry.schema_only:
        assert result is None, f"JVM parser rejects a valid statement: {result}"
        return
    assert result is not None, f"JVM parser accepts a statement the corpus says is {entry.code}"
    code, line, col, _ = result
    assert code == entry.code, (code, entry.code)
    if line is not None:
        assert (line, col) == (entry.line, entry.col)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if not e.valid and not e.schema_only], ids=lambda e: e.name)
def test_both_parsers_give_the_same_parameters(spark, entry):
    """Beyond code and position: overjoin's own errors carry the same message parameters."""
    jvm = jvm_parse(spark, entry)
    py = py_verdict(entry.sql, entry.schemas, entry.double_quoted_identifiers)
    assert same(jvm, py), (jvm, py)


def test_python_validator_agrees_with_the_corpus():
    for entry in ENTRIES:
        first = py_verdict(entry.sql, entry.schemas, entry.double_quoted_identifiers)
        if entry.valid:
            assert first is None, (entry.name, first)
        else:
            assert first is not None, entry.name
            assert first[:3] == (entry.code, entry.line, entry.col), entry.name
