"""The shared corpus through the pure-Python validator."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from overjoin.errors import catalogue
from overjoin.validator import validate
from tests.corpus_loader import CorpusEntry, load_corpus

ENTRIES = load_corpus()


def _errors(entry: CorpusEntry) -> list:
    found = validate(entry.sql, entry.schemas, double_quoted_identifiers=entry.double_quoted_identifiers)
    return [d for d in found if d.severity == "error"]


def test_corpus_is_big_enough() -> None:
    valid = [e for e in ENTRIES if e.valid]
    invalid = [e for e in ENTRIES if not e.valid]
    assert len(ENTRIES) >= 150
    assert len(invalid) >= 40 and len(valid) >= 100
    assert len([e for e in ENTRIES if e.path.name.startswith("spark_")]) >= 60


def test_every_code_of_the_error_table_is_covered() -> None:
    codes = Counter(e.code for e in ENTRIES if not e.valid)
    table = {"OJ001", "OJ101", "OJ102", "OJ103", "OJ104", "OJ105", "OJ106", "OJ107", "OJ108", "OJ109",
             "OJ110", "OJ111", "OJ113", "OJ114", "OJ115", "OJ119", "OJ201", "OJ202", "OJ203", "OJ204",
             "OJ205", "OJ206"}  # fmt: skip
    assert table <= set(codes), table - set(codes)
    known = {c.code for c in catalogue().values()}
    assert set(codes) <= known


def test_every_seed_file_has_entries() -> None:
    prefixes = Counter(e.path.name[:7] for e in ENTRIES if e.path.name.startswith("seed"))
    assert sum(prefixes.values()) >= 50
    # Each of the five seed documents (000-004, kept beside the repository, not in it) has entries
    # in the corpus, which name it on their first line ("-- seed 001: ...").
    named = Counter(
        m.group(1) for e in ENTRIES if (m := re.match(r"-- seed (\d{3})\b", e.path.read_text(errors="replace")))
    )
    assert set(named) == {"000", "001", "002", "003", "004"}, named


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.valid], ids=lambda e: e.name)
def test_valid_entry_has_no_error(entry: CorpusEntry) -> None:
    errors = _errors(entry)
    assert not errors, [d.render(entry.sql, entry.name) for d in errors]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if not e.valid], ids=lambda e: e.name)
def test_invalid_entry_reports_code_and_position(entry: CorpusEntry) -> None:
    errors = _errors(entry)
    assert errors, f"{entry.name}: no error reported"
    first = errors[0]
    assert (first.code, first.line, first.column) == (entry.code, entry.line, entry.col), first.render(entry.sql)
    # Every <param> of the message template was filled in.
    assert first.message and first.hint and not re.search(r"<[A-Za-z_]+>", first.message), first.message


def test_schema_entries_are_syntactically_valid() -> None:
    # The JVM agreement test accepts these at parse time: without schemas they must pass too.
    for entry in (e for e in ENTRIES if e.schema_only):
        errors = [d for d in validate(entry.sql, None, double_quoted_identifiers=entry.double_quoted_identifiers)
                  if d.severity == "error"]  # fmt: skip
        assert not errors, entry.name
