"""Loads the shared SQL corpus of ``tests/corpus/`` (see ``tests/corpus/README.md``).

Both parsers' tests import this module: the pure-Python validator's (``tests/unit/test_corpus.py``)
and the JVM parser's agreement test. It depends on nothing but the standard library.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CORPUS_DIR", "CorpusEntry", "load_corpus", "load_fuzz_regressions", "parse_entry"]

#: The corpus root: ``valid/``, ``invalid/`` and ``schemas/`` live here.
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"

_HEADER = re.compile(r"^--\s*(error|options|schemas):\s*(.*?)\s*$")
_ERROR = re.compile(r"^(OJ\d{3})\s+(\d+):(\d+)$")


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus file.

    Attributes:
        path: the file.
        sql: the whole file text, header comments included (positions count them).
        valid: whether it is under ``valid/``.
        code: the expected error code of an invalid entry (``"OJ102"``), else ``None``.
        line: 1-based line of the start of the offending text, in the whole file.
        col: 1-based column of the start of the offending text.
        options: options from ``-- options:`` (``{"double_quoted_identifiers"}``).
        schemas: the schemas named by ``-- schemas:`` (table -> column -> type), else ``None``.
        schemas_file: that file's name, else ``None``.
    """

    path: Path
    sql: str
    valid: bool
    code: str | None = None
    line: int | None = None
    col: int | None = None
    options: frozenset[str] = field(default_factory=frozenset)
    schemas: dict[str, dict[str, str]] | None = None
    schemas_file: str | None = None

    @property
    def name(self) -> str:
        """``valid/seed000_orders_shipments.sql``-style id, handy for test ids."""
        return f"{self.path.parent.name}/{self.path.name}"

    @property
    def double_quoted_identifiers(self) -> bool:
        """True when the statement is written with ``"quoted"`` identifiers."""
        return "double_quoted_identifiers" in self.options

    @property
    def schema_only(self) -> bool:
        """An invalid entry whose error needs the schemas: it is syntactically valid SQL."""
        return not self.valid and self.schemas is not None


def parse_entry(path: Path, valid: bool) -> CorpusEntry:
    """Read one corpus file and its header comment lines.

    Raises:
        ValueError: a malformed header, or an invalid entry without ``-- error:``.
    """
    text = path.read_text(encoding="utf-8")
    values: dict[str, Any] = {}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        match = _HEADER.match(line)
        if match:
            values[match.group(1)] = match.group(2)
    code = line_no = col = None
    if "error" in values:
        match = _ERROR.match(values["error"])
        if not match:
            raise ValueError(f"{path}: bad error header {values['error']!r}, expected 'OJ102 3:15'")
        code, line_no, col = match.group(1), int(match.group(2)), int(match.group(3))
    if not valid and code is None:
        raise ValueError(f"{path}: an invalid entry needs an '-- error: CODE line:col' header")
    options = frozenset(o.strip() for o in values.get("options", "").split(",") if o.strip())
    schemas = None
    if "schemas" in values:
        schemas = json.loads((path.parent.parent / "schemas" / values["schemas"]).read_text(encoding="utf-8"))
    return CorpusEntry(path, text, valid, code, line_no, col, options, schemas, values.get("schemas"))


def load_corpus(root: Path = CORPUS_DIR) -> list[CorpusEntry]:
    """Every entry of ``root/valid`` and ``root/invalid``, sorted by path."""
    entries = []
    for kind in ("valid", "invalid"):
        for path in sorted((root / kind).glob("*.sql")):
            entries.append(parse_entry(path, kind == "valid"))
    return entries


def load_fuzz_regressions(root: Path = CORPUS_DIR) -> list[tuple[str, str]]:
    """``fuzz/*.sql``: statements that once crashed a parser, as (file name, text without its
    leading comment lines). Each parser must parse or refuse them cleanly; where the two disagree
    on position or wording is not checked (Spark's own parser reports some of them)."""
    out = []
    for path in sorted((root / "fuzz").glob("*.sql")):
        lines = path.read_text(encoding="utf-8").splitlines()
        while lines and lines[0].startswith("--"):
            lines.pop(0)
        out.append((path.name, "\n".join(lines)))
    return out
