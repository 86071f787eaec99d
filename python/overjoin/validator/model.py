"""The block model: a query block's join inputs and its left-deep chain of joins (public:
:mod:`overjoin.explain` describes it)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from sqlglot import exp

from overjoin import dialect as D
from overjoin.validator.common import (
    _group_windows,
    _time_floors,
)


@dataclass
class Window:
    """A join window as the semantics see it (docs/semantics.md §2).

    For ``RANGE``: rows with rowtime in ``[T - a, T - b]`` (``a``/``b`` in microseconds).
    For ``ROWS``: the ``rows + 1`` latest rows (``b`` is then a row count too and 0).
    """

    kind: str = "RANGE"
    a: int = 0
    b: int = 0
    partitioned: bool = False
    order_column: str | None = None
    origin: str = "default"  # default | over | within
    text: str = "RANGE CURRENT ROW"


@dataclass(eq=False)  # an input is itself: `customers JOIN customers` has two equal-looking ones
class Input:
    """One join input of a query block."""

    relation: exp.Expr  # the FROM item (exp.Stream unwrapped into ``node``)
    node: exp.Expr
    alias: str | None
    source: str
    table_name: str | None
    kind: str  # table | subquery | tvf | lookup | other
    streamed: bool  # STREAM t
    join_window: D.JoinWindow | None
    watermark: D.Watermark | None
    spec: D.JoinWindowSpec | None = None
    window: Window | None = None
    window_ok: bool = True
    columns: dict[str, str] | None = None  # lower-case name -> type, when known
    rowtime: str | None = None
    rowtime_from: str | None = None  # order | watermark | column

    @property
    def display(self) -> str:
        if self.alias and self.alias.lower() != self.source.lower():
            return f"{self.alias} ({self.source})"
        return self.source

    @property
    def ref(self) -> str:
        return self.alias or self.source

    @property
    def known_stream(self) -> bool:
        return bool(self.streamed or self.join_window is not None or self.watermark is not None
                    or (self.window is not None and self.window.origin == "within"))  # fmt: skip


@dataclass
class JoinStep:
    """One join of a left-deep chain: ``<inputs so far> <op> right``."""

    join: exp.Join
    right: Input
    side: str  # "" | LEFT | RIGHT | FULL
    kind: str  # "" | INNER | OUTER | CROSS
    method: str  # "" | NATURAL | ASOF
    comma: bool
    within: exp.Expr | None

    @property
    def label(self) -> str:
        words = [w for w in (self.method, self.side) if w]
        if not words and self.kind == "CROSS":
            words = ["CROSS"]
        return " ".join(words) or "INNER"


@dataclass
class Block:
    """A query block (one ``SELECT``) with its join inputs and joins."""

    select: exp.Select
    inputs: list[Input]
    steps: list[JoinStep]
    windows: dict[str, exp.Expr] = field(default_factory=dict)  # lower-case name -> definition
    streaming: bool = False


def block_model(select: exp.Select, sql: str | None = None) -> Block:
    """Describe ``select``'s FROM clause as inputs and a left-deep chain of joins."""
    from_ = select.args.get("from_")
    inputs: list[Input] = []
    steps: list[JoinStep] = []
    if from_ is not None and from_.this is not None:
        inputs.append(_input(from_.this, sql))
    for join in select.args.get("joins") or []:
        right = _input(join.this, sql)
        inputs.append(right)
        steps.append(
            JoinStep(
                join,
                right,
                (join.side or "").upper(),
                (join.kind or "").upper(),
                (join.args.get("method") or "").upper(),
                bool(join.kind == "CROSS" and "pivots" not in join.args),
                join.args.get("within"),
            )
        )
    windows: dict[str, exp.Expr] = {}
    for definition in select.args.get("windows") or []:
        windows.setdefault(definition.this.name.lower(), definition)
    block = Block(select, inputs, steps, windows)
    block.streaming = _is_streaming(block)
    return block


def _input(relation: exp.Expr, sql: str | None = None) -> Input:
    node = relation.this if isinstance(relation, exp.Stream) else relation
    alias = node.alias or None
    table_name = None
    if isinstance(node, exp.Table) and _cursor_function(node.this):
        # TABLE(f(CURSOR(query), ...)): KDA's functions of a cursor (semantics.md §14).
        kind, source = "cursor", f"TABLE({_cursor_function(node.this)}(...))"
    elif isinstance(node, exp.Table) and isinstance(node.this, (exp.Func, exp.Window)):
        kind = "tvf"
        func = node.this.this if isinstance(node.this, exp.Window) else node.this
        # Named by the relation it windows, as the JVM names it.
        first = func.expressions[0] if getattr(func, "expressions", None) else None
        source = f"{func.sql_name()}(...)"
        # overjoin's own nodes inside (a SELECT STREAM argument) are nothing Spark's SQL can say.
        with contextlib.suppress(ValueError):
            source = first.sql(dialect="spark") if first is not None else source
    elif isinstance(node, exp.Table):
        table_name = ".".join(part.name for part in node.parts)
        kind = "lookup" if _is_proctime_lookup(node.args.get("version")) else "table"
        first, last = node.parts[0].meta, node.parts[-1].meta
        # As the user wrote it (quotes included), as the JVM quotes it.
        source = sql[first["start"] : last["end"] + 1] if sql and "start" in first and "end" in last else table_name
    elif isinstance(node, exp.Subquery):
        kind, source = "subquery", "subquery"
    else:
        kind, source = "other", node.sql(dialect=D.dialect_for())
    return Input(
        relation, node, alias, source, table_name, kind, isinstance(relation, exp.Stream),
        node.args.get("join_window"), node.args.get("watermark"),
    )  # fmt: skip


def _cursor_function(node: exp.Expr | None) -> str | None:
    """The name of ``f`` in ``TABLE(f(CURSOR(...), ...))`` as sqlglot reads it (calls of those names)."""

    def call(e: exp.Expr | None, name: str | None = None) -> exp.Anonymous | None:
        if isinstance(e, exp.Anonymous) and (name is None or str(e.this).upper() == name):
            return e
        return None

    table = call(node, "TABLE")
    inner = call(table.expressions[0]) if table is not None and table.expressions else None
    if inner is None or not inner.expressions or call(inner.expressions[0], "CURSOR") is None:
        return None
    return str(inner.this).upper()


def _is_proctime_lookup(version: exp.Expr | None) -> bool:
    """``FOR SYSTEM_TIME AS OF PROCTIME()`` (other time travel is plain Spark SQL)."""
    if version is None or version.name != "SYSTEM_TIME":
        return False
    target = version.args.get("expression")
    if isinstance(target, exp.Window):
        target = target.this
    return isinstance(target, exp.Func) and (target.name or target.sql_name()).upper() == "PROCTIME"


def _is_streaming(block: Block) -> bool:
    if block.select.args.get("stream"):
        return True
    if any(True for _ in _time_floors(block.select)):
        return True  # STEP(ts BY ...), FLOOR/CEIL(ts TO unit) are not Spark SQL (docs/syntax.md)
    if any(True for _ in _group_windows(block.select)):
        return True  # nor are Calcite's group windows, GROUP BY TUMBLE(...) and TUMBLE_END(...)
    if block.select.args.get("stagger") is not None:
        return True  # nor is WINDOWED BY STAGGER (docs/semantics.md §13)
    if isinstance(block.select.args.get("order"), D.OjOrder):
        return True  # nor is s-Server's t-sort, ORDER BY key WITHIN ... (§11)
    for item in block.inputs:
        if item.streamed or item.join_window is not None or item.kind == "lookup":
            return True
        if item.kind == "tvf" and _tvf_name(item) in ("TUMBLE", "HOP"):
            return True
        if item.kind == "cursor":
            return True
    return any(step.within is not None or step.method == "ASOF" for step in block.steps)


def _tvf_name(item: Input) -> str:
    func = item.node.this
    if isinstance(func, exp.Window):
        func = func.this
    return (func.name if isinstance(func, exp.Anonymous) else func.sql_name()).upper()
