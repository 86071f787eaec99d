"""``overjoin explain``: what a query becomes in plain Spark SQL, and what each input does.

For a query block whose join inputs all have ``RANGE`` windows (written, from ``WITHIN``, or the
default ``RANGE CURRENT ROW``), docs/semantics.md §3-4 give the rewrite: input ``X`` with
window ``RANGE BETWEEN a PRECEDING AND b PRECEDING`` lives during ``[x.t + b, x.t + a]``, and

* ``X JOIN Y ON c`` becomes ``X JOIN Y ON c AND y.t BETWEEN x.t + (b_X - a_Y) AND x.t + (a_X - b_Y)``
  (one such condition for each pair of inputs of a multi-way join: intervals on a line share a
  point exactly when each pair of them does);
* the output ``ROWTIME`` is ``GREATEST(x.t + b_X, y.t + b_Y)`` (Spark's ``GREATEST`` skips NULLs,
  so a row null-padded by a lower join counts only its non-null rows); an unmatched row of a
  ``LEFT`` join has ``ROWTIME = x.t + a_X``, the end of its life interval (``RIGHT`` symmetric,
  ``FULL`` both), emitted once the watermark passes it;
* ``x`` stays in state until the watermark passes ``x.t + a_X - b_Y``.

``ROWS`` windows, ``ASOF`` joins, ``FOR SYSTEM_TIME AS OF PROCTIME()`` and ``TUMBLE``/``HOP`` are
described, but their Spark rewrite is not shown (a ``ROWS`` window has no interval join).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from overjoin import dialect as D
from overjoin.validator import (
    Block,
    Diagnostic,
    Input,
    JoinStep,
    Window,
    block_model,
    parse_statements,
    resolve_windows,
    validate,
)

__all__ = ["Explanation", "InputReport", "explain", "format_explanations"]


@dataclass
class InputReport:
    """What one join input does."""

    name: str
    window: str
    rowtime: str
    life: str
    state: str
    null_padded: str


@dataclass
class Explanation:
    """One statement: its Spark SQL (``None`` when not available), its inputs and notes."""

    sql: str
    spark_sql: str | None = None
    inputs: list[InputReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def explain(sql: str, *, double_quoted_identifiers: bool = False) -> list[Explanation]:
    """Explain every statement of ``sql``; a statement with errors carries its diagnostics only."""
    diagnostics = validate(sql, double_quoted_identifiers=double_quoted_identifiers)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        return [Explanation(sql, diagnostics=errors)]
    out = []
    for statement in parse_statements(sql, None, double_quoted_identifiers):
        if statement.tree is None:
            continue
        source = sql[statement.tokens[0].start : statement.tokens[-1].end + 1]
        out.append(_explain_tree(source, statement.tree))
    return out


def _explain_tree(source: str, tree: exp.Expr) -> Explanation:
    result = Explanation(source)
    tree = tree.copy()
    blocks = [block_model(s) for s in tree.find_all(exp.Select)]
    streaming = [b for b in blocks if b.streaming]
    if not streaming:
        result.notes.append("Plain Spark SQL: overjoin leaves it unchanged.")
        result.spark_sql = tree.sql(dialect=D.dialect_for(), comments=False)
        return result
    rewritable = True
    for block in streaming:
        _resolve(block)
        result.inputs.extend(_describe(block))
        reason = _not_rewritable(block)
        if reason:
            result.notes.append(reason)
            rewritable = False
    if rewritable:
        for block in streaming:
            _rewrite(block)
        result.spark_sql = tree.sql(dialect=D.dialect_for(), comments=False)
    return result


# ---- windows and rowtimes -----------------------------------------------------------------


def _resolve(block: Block) -> None:
    """Fill each input's window and rowtime column (the validator has accepted the query)."""
    resolve_windows(block, block.select.sql(dialect=D.dialect_for()))
    for item in block.inputs:
        order = item.window.order_column if item.window else None
        if order:
            item.rowtime, item.rowtime_from = order, "order"
        elif item.watermark is not None and isinstance(item.watermark.this, exp.Column):
            item.rowtime, item.rowtime_from = item.watermark.this.name, "watermark"
        else:
            item.rowtime, item.rowtime_from = "rowtime", "column"


def _not_rewritable(block: Block) -> str | None:
    for item in block.inputs:
        if item.window is not None and item.window.kind == "ROWS":
            return (f"{item.display} has a ROWS window: its life intervals end when later rows arrive, "
                    "not at a fixed time, so there is no interval join to show. Over tables overjoin "
                    "computes each row's end with lead(rowtime, n + 1); on streams overjoin's join operator "
                    "computes it as later rows arrive (docs/operator.md).")  # fmt: skip
        if item.kind == "lookup":
            return (f"{item.display} is read FOR SYSTEM_TIME AS OF PROCTIME(): a lookup join; each "
                    "stream row joins the table as it is when the row is processed (ROWTIME = the "
                    "stream row's). Its Spark rewrite is not shown.")  # fmt: skip
        if item.kind == "tvf":
            return (f"{item.display} is a window table function: rows get window_start and "
                    "window_end, and a joined row's ROWTIME is window_end. Its Spark rewrite is not "
                    "shown.")  # fmt: skip
        if item.kind not in ("table", "subquery"):
            return f"{item.display}: explain cannot rewrite this kind of input."
    for step in block.steps:
        if step.method == "ASOF":
            return ("ASOF join: each left row takes the closest right row in the allowed direction, "
                    "ROWTIME = the left row's. Its Spark rewrite is not shown.")  # fmt: skip
        if step.method == "NATURAL":
            return "NATURAL join: the rewrite needs the inputs' columns; it is not shown."
        if step.join.args.get("using") and step.right is not block.inputs[1]:
            return "USING in a multi-way join: the rewrite is not shown."
    return None


def _t(item: Input) -> exp.Column:
    if item.rowtime is None:
        raise ValueError(f"input {item.display} has no rowtime")  # rewritten only once every input has one
    return exp.column(item.rowtime, table=item.ref)


def _plus(column: exp.Expr, micros: int, keep_zero: bool = True) -> exp.Expr:
    if micros == 0 and not keep_zero:
        return column.copy()
    literal = exp.Interval(this=exp.Literal.string(_seconds(abs(micros))), unit=exp.var("SECOND"))
    cls = exp.Sub if micros < 0 else exp.Add
    return cls(this=column.copy(), expression=literal)


def _seconds(micros: int) -> str:
    whole, frac = divmod(micros, 10**6)
    return str(whole) if not frac else f"{whole}.{frac:06d}".rstrip("0")


# ---- the rewrite ------------------------------------------------------------------------------


def _rewrite(block: Block) -> None:
    select = block.select
    nullable = _nullable_inputs(block)
    for index, step in enumerate(block.steps):
        left = block.inputs[: index + 1]
        conditions = [_time_condition(x, step.right, any(x is n for n in nullable)) for x in left]
        _add_condition(step, left, conditions)
    rowtime = _rowtime_expr(block)
    _replace_rowtime_refs(select, rowtime)
    projections = [e for e in select.expressions if not _is_bare_rowtime(e)]
    select.set("expressions", [exp.alias_(rowtime, "ROWTIME"), *projections])
    _strip(block)


def _nullable_inputs(block: Block) -> list[Input]:
    """Inputs whose rows can be NULL-padded by an outer join below the top one."""
    nullable: list[Input] = []
    for index, step in enumerate(block.steps[:-1]):
        if step.side in ("LEFT", "FULL"):
            nullable.append(step.right)
        if step.side in ("RIGHT", "FULL"):
            nullable.extend(block.inputs[: index + 1])
    return nullable


def _time_condition(x: Input, y: Input, nullable: bool) -> exp.Expr:
    wx, wy = x.window or Window(), y.window or Window()
    low = _plus(_t(x), wx.b - wy.a)
    high = _plus(_t(x), wx.a - wy.b)
    cond: exp.Expr = exp.Between(this=_t(y), low=low, high=high)
    if nullable:
        cond = exp.Paren(this=exp.or_(exp.Is(this=_t(x), expression=exp.null()), cond))
    return cond


def _add_condition(step: JoinStep, left: list[Input], conditions: list[exp.Expr]) -> None:
    join = step.join
    using = join.args.get("using")
    on = join.args.get("on")
    if using:
        on = exp.and_(*[exp.EQ(this=exp.column(c.name, table=left[0].ref),
                               expression=exp.column(c.name, table=step.right.ref)) for c in using])  # fmt: skip
        join.set("using", None)
    parts = [on] if on is not None and on != exp.true() else []
    join.set("on", exp.and_(*parts, *conditions) if parts or conditions else None)
    if join.kind == "CROSS":
        join.set("kind", None)


def _rowtime_expr(block: Block) -> exp.Expr:
    starts = [_plus(_t(i), (i.window or Window()).b, keep_zero=False) for i in block.inputs]
    matched: exp.Expr = starts[0] if len(starts) == 1 else exp.Greatest(this=starts[0], expressions=starts[1:])
    if not block.steps or block.steps[-1].side not in ("LEFT", "RIGHT", "FULL"):
        return matched
    top = block.steps[-1]
    left = block.inputs[:-1]
    ifs = []
    if top.side in ("LEFT", "FULL"):
        ifs.append(exp.If(this=exp.Is(this=_t(top.right), expression=exp.null()), true=_end(left)))
    if top.side in ("RIGHT", "FULL"):
        absent = exp.Is(this=_coalesce([_t(i) for i in left]), expression=exp.null())
        ifs.append(exp.If(this=absent, true=_end([top.right])))
    return exp.Case(ifs=ifs, default=matched)


def _end(items: list[Input]) -> exp.Expr:
    ends = [_plus(_t(i), (i.window or Window()).a, keep_zero=False) for i in items]
    return ends[0] if len(ends) == 1 else exp.Least(this=ends[0], expressions=ends[1:])


def _coalesce(columns: list[exp.Expr]) -> exp.Expr:
    return columns[0] if len(columns) == 1 else exp.Coalesce(this=columns[0], expressions=columns[1:])


def _is_bare_rowtime(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column) and not node.table and node.name.lower() == "rowtime"


def _replace_rowtime_refs(select: exp.Select, rowtime: exp.Expr) -> None:
    for column in list(select.find_all(exp.Column)):
        if _is_bare_rowtime(column) and column.parent is not select and column.find_ancestor(exp.Select) is select:
            column.replace(rowtime.copy())


def _strip(block: Block) -> None:
    block.select.set("stream", None)
    for item in block.inputs:
        if item.node.args.get("join_window") is not None:
            item.node.set("join_window", None)
            item.node.set("window_after_alias", None)
        if isinstance(item.relation, exp.Stream):
            item.relation.replace(item.node)
    for step in block.steps:
        step.join.set("within", None)
        step.join.set("within_first", None)
    windows = [w for w in block.select.args.get("windows") or [] if not _used_by_inputs(w, block)]
    block.select.set("windows", windows or None)


def _used_by_inputs(definition: exp.Expr, block: Block) -> bool:
    name = definition.this.name.lower()
    used_by_functions = any(
        isinstance(w.args.get("alias"), exp.Identifier) and w.args["alias"].name.lower() == name
        for w in block.select.find_all(exp.Window)
    )
    return not used_by_functions and isinstance(definition, D.NamedJoinWindow)


# ---- descriptions ---------------------------------------------------------------------------


def _describe(block: Block) -> list[InputReport]:
    return [_describe_input(block, item) for item in block.inputs]


def _describe_input(block: Block, item: Input) -> InputReport:
    ref = f"{item.ref}.{item.rowtime}"
    window = item.window or Window()
    how = {"default": " (no window written: the default)", "within": " (from WITHIN)", "over": ""}
    window_text = f"{window.text}{how[window.origin]}"
    if item.kind == "lookup":
        return InputReport(item.display, "none: a lookup table", "none", "none",
                           "read per micro-batch, not kept", "never")  # fmt: skip
    if window.kind == "ROWS":
        per = " in its partition" if window.partitioned else ""
        life = f"[{ref}, s.rowtime) where s is the {_ordinal(window.a + 1)} later row of {item.display}{per}"
        state = f"until {window.a + 1} later rows{per} have arrived and the watermark passes the last one"
    else:
        life = f"[{ref}{_dur(window.b)}, {ref}{_dur(window.a)}]"
        state = _state_text(block, item, ref)
    return InputReport(item.display, window_text, f"{ref} ({_origin(item)})", life, state,
                       _null_text(block, item, ref))  # fmt: skip


def _origin(item: Input) -> str:
    return {"order": "ORDER BY of its window", "watermark": "its WATERMARK clause",
            "column": "the column named ROWTIME"}[item.rowtime_from or "column"]  # fmt: skip


def _state_text(block: Block, item: Input, ref: str) -> str:
    partners = [i for i in block.inputs if i is not item]
    if not partners:
        return "not joined"
    a = (item.window or Window()).a
    keep = max(a - (p.window or Window()).b for p in partners)
    return f"until the watermark passes {ref}{_dur(keep)} (its last possible match)"


def _null_text(block: Block, item: Input, ref: str) -> str:
    index = block.inputs.index(item)
    for step_index, step in enumerate(block.steps):
        right_side = step.right is item
        left_side = index <= step_index
        if (step.side in ("LEFT", "FULL") and left_side) or (step.side in ("RIGHT", "FULL") and right_side):
            window = item.window or Window()
            if window.kind == "ROWS":
                return ("when nothing matched: (row, NULLs) once its window closes (the later rows "
                        "arrive) and the watermark passes that time")  # fmt: skip
            return (f"when nothing matched: (row, NULLs) with ROWTIME = {ref}{_dur(window.a)}, "
                    "emitted once the watermark passes it")  # fmt: skip
    return "never: it is not the preserved side of an outer join"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _dur(micros: int) -> str:
    if micros == 0:
        return ""
    sign = " - " if micros < 0 else " + "
    micros = abs(micros)
    for unit, size in (("d", 86400 * 10**6), ("h", 3600 * 10**6), ("m", 60 * 10**6), ("s", 10**6)):
        if micros % size == 0:
            return f"{sign}{micros // size}{unit}"
    return f"{sign}{micros / 10**6:g}s"


# ---- text -----------------------------------------------------------------------------------


def format_explanations(explanations: list[Explanation]) -> str:
    """Human-readable text of :func:`explain`'s result."""
    parts = []
    for item in explanations:
        lines = []
        if item.diagnostics:
            lines.append("-- the query has errors; run `overjoin check` for details:")
            lines.extend(f"--   {d.line}:{d.column}: {d.code}: {d.message}" for d in item.diagnostics)
            parts.append("\n".join(lines))
            continue
        lines.append("-- Spark SQL")
        lines.append(f"{item.spark_sql};" if item.spark_sql else "-- (not available: see the notes)")
        if item.inputs:
            lines.append("")
            lines.append("-- inputs")
            for report in item.inputs:
                lines.append(report.name)
                for label, value in (("window", report.window), ("rowtime", report.rowtime),
                                     ("life interval", report.life), ("state", report.state),
                                     ("null-padded rows", report.null_padded)):  # fmt: skip
                    lines.append(f"  {label + ':':<18}{value}")
        if item.notes:
            lines.append("")
            lines.extend(f"-- note: {note}" for note in item.notes)
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
