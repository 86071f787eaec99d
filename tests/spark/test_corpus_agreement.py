"""One corpus, two parsers: the JVM parser (inside Spark) agrees with the Python validator on
which corpus statements are valid, and on where the error is wherever the JVM reports a position.

Schema-level errors (OJ2xx) need table schemas the JVM parser does not have: those statements are
syntactically valid, so the JVM parser must accept them (it reports the same problems later, at
analysis). Disagreements are bugs, not skips.
"""

from __future__ import annotations

import re

import pytest

from tests.corpus_loader import load_corpus

ENTRIES = load_corpus()

_OURS = re.compile(r"\(line (\d+), position (\d+)\)")    # overjoin's errors: 1-based column
_SPARKS = re.compile(r"\(line (\d+), pos (\d+)\)")        # Spark's errors: 0-based position


def jvm_parse(spark, entry):
    """Parse with the JVM parser: None when it accepts, else (code, line, col or None)."""
    from pyspark.errors.exceptions.captured import CapturedException

    parser = spark._jsparkSession.sessionState().sqlParser()
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", str(entry.double_quoted_identifiers).lower())
    try:
        parser.parsePlan(entry.sql)
        return None
    except CapturedException as e:  # pyspark converts the JVM's ParseException
        msg = str(e)
        code = re.search(r"\] (OJ\d{3}):", msg)
        ours = _OURS.search(msg)
        if code and ours:
            return code.group(1), int(ours.group(1)), int(ours.group(2))
        theirs = _SPARKS.search(msg)
        if theirs:
            return "OJ001", int(theirs.group(1)), int(theirs.group(2)) + 1
        return "OJ001", None, None
    finally:
        spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")


def test_corpus_has_at_least_150_entries():
    assert len(ENTRIES) >= 150


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_jvm_parser_agrees_with_the_corpus(spark, entry):
    result = jvm_parse(spark, entry)
    if entry.valid or entry.schema_only:
        assert result is None, f"JVM parser rejects a valid statement: {result}"
        return
    assert result is not None, f"JVM parser accepts a statement the corpus says is {entry.code}"
    code, line, col = result
    # Spark's own syntax errors are one class (OJ001); overjoin's codes must match exactly.
    assert code == entry.code or (code == "OJ001" and entry.code == "OJ001"), (code, entry.code)
    if line is not None:
        assert (line, col) == (entry.line, entry.col)


def test_python_validator_agrees_with_the_corpus():
    import overjoin

    for entry in ENTRIES:
        diags = [d for d in overjoin.validate(entry.sql, entry.schemas,
                                              double_quoted_identifiers=entry.double_quoted_identifiers)
                 if d.severity == "error"]
        if entry.valid:
            assert not diags, (entry.name, diags)
        else:
            assert diags, entry.name
            assert (diags[0].code, diags[0].line, diags[0].column) == (entry.code, entry.line, entry.col), entry.name
