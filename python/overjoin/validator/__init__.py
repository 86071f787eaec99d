"""The pure-Python pre-validator: ``validate(sql) -> list[Diagnostic]``, no JVM.

It checks what the JVM extension's parser checks (docs/syntax.md, its error table), plus, when
``schemas`` are given, what needs the inputs' columns (docs/semantics.md §1 and §4).

How it works:

1. The whole text is tokenized once with the :mod:`overjoin.dialect` tokenizer, so every
   position is relative to the whole text, and split into statements at ``;``.
2. Each statement is parsed on its own; a statement that does not parse is one ``OJ001``
   diagnostic at the first token that cannot continue it (sqlglot reports the *last* character
   of a token: we keep the token and report its first), and the next statement is validated.
   A statement sqlglot only keeps as a raw ``Command`` is a syntax error too, except the few Spark
   statements sqlglot never models (``SHOW``, ``ADD JAR`` ...), which hold no query.
3. Every query block in the streaming dialect (docs/semantics.md §0: ``SELECT STREAM``, ``OVER``
   or ``WITHIN`` on a join input, ``ASOF``, ``FOR SYSTEM_TIME AS OF PROCTIME()``, ``TUMBLE``/``HOP``,
   ``STREAM t``) is checked: windows, joins, named windows and, with schemas, columns and rowtimes.
   Other query blocks are plain Spark SQL and get only the syntax check (and Spark's own rule that
   a window name is defined once).

The block model built here (:func:`block_model`, with each input's window from
:func:`resolve_windows`) is also what :mod:`overjoin.explain` describes.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from overjoin.validator.checks import (
    check_tree,
    resolve_windows,
)
from overjoin.validator.diagnostics import (
    Diagnostic,
    Reporter,
    Text,
    render,
)
from overjoin.validator.model import (
    Block,
    Input,
    JoinStep,
    Window,
    block_model,
)
from overjoin.validator.schema_checks import (
    SchemaIndex,
    Schemas,
)
from overjoin.validator.statements import (
    Statement,
    parse_statements,
)

__all__ = [
    "Block",
    "Diagnostic",
    "Input",
    "JoinStep",
    "Reporter",
    "Schemas",
    "Statement",
    "Text",
    "Window",
    "block_model",
    "parse_statements",
    "render",
    "resolve_windows",
    "validate",
]


def validate(
    sql: str,
    schemas: Schemas | None = None,
    *,
    double_quoted_identifiers: bool = False,
) -> list[Diagnostic]:
    """Validate overjoin SQL without a JVM and return its diagnostics, sorted by position.

    Args:
        sql: one statement or several separated by ``;``.
        schemas: optional table name -> {column name: Spark type string}; enables the column
            checks (``USING``, ``NATURAL``, rowtime, ambiguity). Names match case-insensitively,
            a qualified name (``db.t``) first in full, then by its last part.
        double_quoted_identifiers: read ``"x"`` as an identifier (Spark's
            ``spark.sql.ansi.doubleQuotedIdentifiers``), as s-Server queries are written.

    Returns:
        An empty list when the text is valid.
    """
    text = Text(sql)
    reporter = Reporter(text)
    with _deep_recursion():
        try:
            for statement in parse_statements(sql, reporter, double_quoted_identifiers):
                if statement.tree is not None:
                    check_tree(statement, reporter, SchemaIndex(schemas) if schemas else None)
        except RecursionError:
            reporter.add("OVERJOIN_STATEMENT_TOO_COMPLEX", (0, 0), depth=_depth(sql))
        except Exception as error:
            reporter.add(
                "OVERJOIN_INTERNAL_ERROR", (0, 0), detail=f"the validator failed: {type(error).__name__}: {error}"
            )
    return reporter.sorted()


@contextlib.contextmanager
def _deep_recursion(limit: int = 20000) -> Iterator[None]:
    """sqlglot's parser recurses a dozen frames per level of parentheses: allow it deep nesting
    (Python 3.11 runs Python-to-Python calls off the C stack), then put the limit back. Python 3.10
    keeps its own limit: its frames are on the C stack, and deep nesting would crash the interpreter
    instead of raising RecursionError (reported as OJ002)."""
    if sys.version_info < (3, 11):
        yield
        return
    previous = sys.getrecursionlimit()
    if previous < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        if previous < limit:
            sys.setrecursionlimit(previous)


def _depth(sql: str) -> int:
    depth = deepest = 0
    for ch in sql:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    return deepest
