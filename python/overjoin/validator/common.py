"""Small helpers shared by the validator's modules: positions, texts, syntax errors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sqlglot import exp
from sqlglot.tokens import Token

from overjoin import dialect as D

if TYPE_CHECKING:
    from overjoin.validator.model import Block, Input

from overjoin.validator.diagnostics import (
    Reporter,
)

_REQUIRED = re.compile(r"Required keyword: '\w+' missing for <class '[\w.]+'>")
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.\w+, text: ([^,]*), .*?>")


def _syntax_error(reporter: Reporter, token: Token | None, detail: str, at_end: bool = False) -> None:
    """Report OJ001 at ``token`` (or just after it when the statement ended too early; at the
    start of the text when there is no token at all)."""
    if token is None:
        at, span = "end of input", (0, 0)
    elif at_end:
        at, span = "end of input", (token.end + 1, token.end + 1)
    else:
        at, span = _quote(token.text), (token.start, token.end)
    detail = _TOKEN_REPR.sub(lambda m: _quote(m.group(1)), detail.split("\n")[0])
    if detail.endswith(".") and not detail.endswith("..."):
        detail = detail[:-1]
    detail = detail.replace("'SENTINEL'", "end of input")
    detail = _REQUIRED.sub("expected an expression", detail)
    detail = detail.replace("Invalid expression / Unexpected token", "unexpected token")
    detail = re.sub(r"^Expecting (\S+)$", r"expected '\1'", detail)
    # "Expected ..." reads as "expected ..." after the colon; a keyword such as QUARTER stays as it is.
    if detail[:1].isupper() and detail[1:2].islower():
        detail = detail[:1].lower() + detail[1:]
    reporter.add("OVERJOIN_SYNTAX_ERROR", span, token=at, detail=detail)


def schema_database(name: str) -> str:
    """The Spark database of an s-Server schema name: ``SchemaNames.database``. Letters, digits and
    ``_`` only: the name itself; otherwise letters and digits stay, ``_`` is ``__`` and every other
    character is ``_`` and the two hex digits of each of its UTF-8 bytes."""
    if name and all(ord(c) < 128 and (c.isalnum() or c == "_") for c in name):
        return name
    out = []
    for b in name.encode("utf-8"):
        c = chr(b)
        out.append(c if b < 128 and c.isalnum() else "__" if c == "_" else f"_{b:02x}")
    return "".join(out)


def _quote(text: str) -> str:
    return f"'{text}'"


def _token_at(tokens: list[Token], offset: int) -> Token | None:
    for token in tokens:
        if token.start >= offset:
            return token
    return tokens[-1] if tokens else None


def _unterminated_offset(sql: str) -> int:
    """Where an unterminated string, quoted identifier or comment starts (the tokenizer's error)."""
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            i = sql.find("\n", i)
            if i < 0:
                return n
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end < 0:
                return i
            i = end + 1
        elif ch in "'\"`":
            j = i + 1
            while j < n and sql[j] != ch:
                j += 2 if sql[j] == "\\" else 1
            if j >= n:
                return i
            i = j
        i += 1
    return 0


def _check_duplicate_windows(block: Block, reporter: Reporter) -> None:
    seen: set[str] = set()
    for definition in block.select.args.get("windows") or []:
        name = definition.this.name.lower()
        if name in seen:
            reporter.add("OVERJOIN_DUPLICATE_WINDOW_NAME", _span(definition.this) or D.pos(definition, "name"),
                         name=definition.this.name)  # fmt: skip
        seen.add(name)


def _order_column(spec: D.JoinWindowSpec | None) -> exp.Column | None:
    order = spec.args.get("order") if spec is not None else None
    if not order or len(order) != 1:
        return None
    item = order[0]
    if isinstance(item, exp.Ordered):
        if item.args.get("desc"):
            return None
        item = item.this
    return item if isinstance(item, exp.Column) else None


def _time_floors(select: exp.Select) -> Iterator[exp.Expr]:
    """``STEP(ts BY ...)``, ``FLOOR(ts TO unit)`` and ``CEIL(ts TO unit)`` calls of ``select`` itself,
    not of nested queries."""
    for node in select.find_all(D.TimeStep, exp.Floor, exp.Ceil):
        if isinstance(node, (exp.Floor, exp.Ceil)) and not node.args.get("to"):
            continue
        parent = node.parent
        while parent is not None and parent is not select and not isinstance(parent, (exp.Select, exp.Subquery)):
            parent = parent.parent
        if parent is select:
            yield node


def _group_windows(select: exp.Select) -> Iterator[D.GroupWindow]:
    """Calcite's group window calls of ``select`` itself (``GROUP BY TUMBLE(...)``, ``TUMBLE_END(...)``,
    ...), not of nested queries."""
    for node in select.find_all(D.GroupWindow):
        parent = node.parent
        while parent is not None and parent is not select and not isinstance(parent, (exp.Select, exp.Subquery)):
            parent = parent.parent
        if parent is select:
            yield node


def _own_columns(select: exp.Select) -> Iterator[exp.Column]:
    """Columns of ``select`` itself: not in nested queries, join windows or watermarks."""
    skip = (exp.Subquery, exp.Select, D.JoinWindow, D.NamedJoinWindow, D.Watermark, exp.Lambda, exp.Window)
    for column in select.find_all(exp.Column):
        node = column.parent
        inner = False
        while node is not None and node is not select:
            if isinstance(node, skip) and not (isinstance(node, exp.Window) and node.parent is not select):
                inner = True
                break
            node = node.parent
        if not inner and isinstance(column.this, exp.Identifier):
            yield column


def _is_timestamp(kind: str) -> bool:
    return kind.strip().lower().replace(" ", "") in (
        "timestamp", "timestamp_ltz", "timestamp_ntz", "timestamptype", "timestampntztype",
    )  # fmt: skip


def _names(items: Iterable[Input]) -> str:
    names = [i.display for i in items]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _span(node: exp.Expr | None) -> tuple[int, int] | None:
    if node is None:
        return None
    if isinstance(node, exp.Column):
        first = _span(node.args.get("table") or node.this)
        last = _span(node.this)
        return (first[0], last[1]) if first and last else first or last
    meta = node._meta or {}
    if "start" in meta and "end" in meta:
        return meta["start"], meta["end"]
    for part in ("name", "relation", "value", "bound"):
        found = D.pos(node, part)
        if found:
            return found
    return None


def _first_span(node: exp.Expr) -> tuple[int, int] | None:
    for sub in node.walk():
        found = _span(sub) or D.pos(sub, "interval")
        if found:
            return found
    return None


def _tspan(token: Token | None) -> tuple[int, int] | None:
    return (token.start, token.end) if token else None


def _sql(node: exp.Expr) -> str:
    return node.sql(dialect=D.dialect_for())


def _bound_text(bound: D.FrameBound | None) -> str:
    if bound is None or bound.args.get("side") == "CURRENT ROW":
        return "CURRENT ROW (0)"
    return _sql(bound.this)


def _spec_text(spec: D.JoinWindowSpec) -> str:
    return _sql(spec)
