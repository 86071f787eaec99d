"""The checks of a statement's query blocks in the streaming dialect: windows, joins, named
windows and, with schemas, columns and rowtimes."""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from overjoin import dialect as D
from overjoin.validator.common import (
    _check_duplicate_windows,
    _is_timestamp,
    _names,
    _order_column,
    _own_columns,
    _span,
    _sql,
    _syntax_error,
    _time_floors,
    _token_at,
    _tspan,
)
from overjoin.validator.cursor_checks import check_cursor_functions
from overjoin.validator.diagnostics import (
    Reporter,
    Text,
)
from overjoin.validator.group_window_checks import check_group_windows
from overjoin.validator.model import (
    Block,
    Input,
    JoinStep,
    Window,
    block_model,
)
from overjoin.validator.schema_checks import (
    SchemaIndex,
)
from overjoin.validator.sliding_checks import check_sliding_windows
from overjoin.validator.statements import (
    Statement,
)
from overjoin.validator.time_floor_checks import check_time_floors
from overjoin.validator.window_checks import (
    WindowChecker,
)


def check_tree(statement: Statement, reporter: Reporter, schemas: SchemaIndex | None) -> None:
    """Check every query block of a parsed statement; the streaming ones get the full checks."""
    tokens = statement.tokens
    if statement.tree is None:
        return
    check_cursor_functions(tokens, reporter)
    for select in statement.tree.find_all(exp.Select):
        if select.args.get("joins") and select.args.get("from_") is None:
            # sqlglot reads `SELECT a b JOIN c` as joins without a FROM; Spark does not.
            span = D.pos(select.args["joins"][0].this, "relation") or _span(select.args["joins"][0].this)
            token = _token_at(tokens, span[0]) if span else tokens[0]
            _syntax_error(reporter, token or tokens[0], "expected FROM before the first JOIN")
            continue
        block = block_model(select, reporter.text.sql)
        _check_duplicate_windows(block, reporter)
        check_stream_distinct(block, reporter, tokens)
        if not block.streaming:
            continue
        check_time_floors(block, reporter, tokens)
        ctx = Context(block, reporter, tokens, schemas)
        ctx.run()
        check_stagger(ctx)
        check_group_windows(ctx)
        check_sort_within(ctx)


def check_stream_distinct(block: Block, reporter: Reporter, tokens: list[Token]) -> None:
    """docs/semantics.md §15 (OJ126): a ``SELECT STREAM DISTINCT`` needs a time item in its select
    list (``ROWTIME``, a ``STEP``/``FLOOR``/``CEIL`` of it, or ``MONOTONIC(...)``), over streams and
    tables alike, as the JVM parser decides it: at the block's ``SELECT``, naming its items."""
    select = block.select
    if not select.args.get("stream") or not select.args.get("distinct") or not block.inputs:
        return
    if select.args.get("stagger") is not None:
        return
    single = len(block.inputs) == 1

    def rowtime(e: exp.Expr | None) -> bool:
        if not isinstance(e, exp.Column) or (e.table and not single):
            return False
        name = e.this
        return name.name == "ROWTIME" if name.quoted else name.name.upper() == "ROWTIME"

    def timed(item: exp.Expr) -> bool:
        e = item.this if isinstance(item, exp.Alias) else item
        if rowtime(e):
            return True
        if isinstance(e, (D.TimeStep, exp.Floor, exp.Ceil)) and (isinstance(e, D.TimeStep) or e.args.get("to")):
            return rowtime(e.this)
        return isinstance(e, exp.Anonymous) and e.name.upper() == "MONOTONIC"

    items = select.expressions
    if any(timed(i) for i in items) or _gets_implicit_rowtime(select):
        return
    stream = D.pos(select, "stream")
    token = next((t for t in reversed(tokens) if stream and t.end < stream[0]), None)
    span = (token.start, token.end) if token is not None and token.text.upper() == "SELECT" else stream
    names = ", ".join(i.alias_or_name or i.sql() for i in items)
    reporter.add("OVERJOIN_DISTINCT_WITHOUT_TIME", span, items=names)


def _gets_implicit_rowtime(select: exp.Select) -> bool:
    """Whether the JVM parser adds ``ROWTIME`` to ``select``'s list (docs/semantics.md §10): a
    ``SELECT STREAM`` read by a streaming block (an input of its FROM, a cursor's query) whose
    items name no ``ROWTIME`` and have no ``*``. (A view's query gets it only when the view is
    read, so ``CREATE VIEW`` judges the list as written.)"""

    def names_rowtime(item: exp.Expr) -> bool:
        return (
            isinstance(item, exp.Star)
            or (item.alias_or_name or "").upper() == "ROWTIME"
            or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star))
        )

    if any(names_rowtime(i) for i in select.expressions):
        return False
    node, via_from = select.parent, False
    while node is not None and not isinstance(node, exp.Select):
        via_from = via_from or isinstance(node, (exp.From, exp.Join))
        node = node.parent
    return node is not None and via_from and bool(node.args.get("stream"))


def check_stagger(ctx: Context) -> None:
    """docs/semantics.md §13: a stagger window's RANGE is a duration above zero, checked as a join
    window's size (the same codes, the window named "the window of WINDOWED BY STAGGER"), as the JVM
    parser does."""
    stagger = ctx.block.select.args.get("stagger")
    if stagger is None:
        return
    checker = WindowChecker(ctx, None, None, display="WINDOWED BY STAGGER", window="the window of WINDOWED BY STAGGER")
    micros = checker.range_size(stagger.this)
    span = D.pos(stagger, "size")
    if micros is not None and micros <= 0 and span is not None:
        written = ctx.sql[span[0] : span[1] + 1]
        ctx.reporter.add(
            "OVERJOIN_SYNTAX_ERROR", span, token=written, detail="a stagger window's RANGE must be longer than zero"
        )


def check_sort_within(ctx: Context) -> None:
    """docs/semantics.md §11: the WITHIN of s-Server's t-sort (``ORDER BY key WITHIN ...``) is a
    duration, checked as a join window's size (the window named "the WITHIN of ORDER BY"), as the
    JVM parser does."""
    order = ctx.block.select.args.get("order")
    if isinstance(order, D.OjOrder):
        checker = WindowChecker(ctx, None, None, display="ORDER BY", window="the WITHIN of ORDER BY")
        checker.range_size(order.args["within"])


def resolve_windows(block: Block, sql: str) -> None:
    """Give each input of ``block`` its window as the checks would, for a query the validator has
    accepted (nothing is reported): what :mod:`overjoin.explain` describes."""
    Context(block, Reporter(Text(sql)), [], None).resolve_windows()


class Context:
    """The checks of one streaming query block."""

    def __init__(self, block: Block, reporter: Reporter, tokens: list[Token], schemas: SchemaIndex | None):
        self.block = block
        self.reporter = reporter
        self.tokens = tokens
        self.schemas = schemas
        self.sql = reporter.text.sql

    def run(self) -> None:
        self.resolve_windows()
        self._check_joins()
        self._check_window_qualifiers()
        check_sliding_windows(self)
        if self.schemas is not None:
            self._check_schemas()

    # ---- windows ---------------------------------------------------------------------------

    def resolve_windows(self) -> None:
        """Give each input its :class:`Window` (``OVER``, ``WITHIN`` or the default), reporting
        what is wrong with the windows as it goes."""
        for item in self.block.inputs:
            if item.join_window is not None:
                spec = self._spec_of(item)
                if spec is not None:
                    item.spec = spec
                    item.window = WindowChecker(self, item, spec).check()
                    item.window_ok = item.window is not None
                else:
                    item.window_ok = False
        for step in self.block.steps:
            if step.within is not None:
                self._apply_within(step)
        for item in self.block.inputs:
            if item.window is None and item.window_ok:
                item.window = Window()

    def _spec_of(self, item: Input) -> D.JoinWindowSpec | None:
        window = item.join_window
        if window is None:
            return None
        if window.args.get("spec") is not None:
            return window.args["spec"]
        name = window.this
        definition = self.block.windows.get(name.name.lower())
        if definition is None:
            span = _span(name)
            self.reporter.add("OVERJOIN_WINDOW_UNKNOWN_NAME", span,
                              name=self.sql[span[0]:span[1] + 1] if span else name.sql(dialect=D.dialect_for()),
                              input=item.display)  # fmt: skip
            return None
        if isinstance(definition, D.NamedJoinWindow):
            return definition.args["spec"]
        failure = definition.meta.get("oj_join_error")
        token = _token_at(self.tokens, failure[1]) if failure else None
        if token is None:
            span = _span(definition.this) or _span(name)
            token = _token_at(self.tokens, span[0]) if span else self.tokens[0]
        _syntax_error(self.reporter, token, failure[0] if failure else "not a join window")
        return None

    def _apply_within(self, step: JoinStep) -> None:
        """Lenses' ``WITHIN``: the same RANGE window on the join's right input and the input nearest
        on its left, as the JVM reads it: the duration first, then whether OVER is there too."""
        span = D.pos(step.join, "within")
        if step.within is None:
            return
        if step.method == "ASOF":
            self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", span, input=step.right.display,
                              detail="an ASOF join takes no window")  # fmt: skip
            return
        size = WindowChecker(self, step.right, None).range_size(step.within)
        pair = [self._left_inputs(step)[-1], step.right]
        if any(item.join_window is not None for item in pair):
            self.reporter.add("OVERJOIN_WITHIN_WITH_OVER", span, input=step.right.display)
            return
        if size is None:
            for item in pair:
                item.window_ok = False
            return
        text = f"RANGE {_sql(step.within)} PRECEDING"
        for item in pair:
            if item.window is None:
                item.window = Window("RANGE", size, 0, origin="within", text=text)

    def _left_inputs(self, step: JoinStep) -> list[Input]:
        index = self.block.inputs.index(step.right)
        return self.block.inputs[:index]

    # ---- joins -----------------------------------------------------------------------------

    def _check_joins(self) -> None:
        for step in self.block.steps:
            self._check_cross(step)
            self._check_asof(step)
            self._check_lookup_window(step)
        for item in self.block.inputs:
            if item.kind == "tvf" and (item.join_window is not None or isinstance(item.node.this, exp.Window)):
                self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", self._over_span(item), input=item.display,
                                  detail="a TUMBLE/HOP input is windowed by its function already")  # fmt: skip

    def _check_cross(self, step: JoinStep) -> None:
        if step.kind != "CROSS":
            return
        if step.join.args.get("using"):
            clause = "USING"
        elif step.join.args.get("on") is not None:
            clause = "ON"
        else:
            return
        token = self._token_after(step.right, TokenType.USING if clause == "USING" else TokenType.ON)
        self.reporter.add("OVERJOIN_CROSS_JOIN_CONDITION", _tspan(token), clause=f"an {clause} condition"
                          if clause == "ON" else "a USING clause")  # fmt: skip

    def _check_asof(self, step: JoinStep) -> None:
        if step.method != "ASOF":
            return
        for item in (step.right, *self._left_inputs(step)[-1:]):
            if item.join_window is not None:
                self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", D.pos(item.join_window, "over"),
                                  input=item.display,
                                  detail="an ASOF join takes no window")  # fmt: skip
        on = step.join.args.get("on")
        conjuncts = list(on.flatten()) if isinstance(on, exp.And) else ([on] if on is not None else [])
        equalities = sum(isinstance(c, exp.EQ) for c in conjuncts)
        inequalities = sum(isinstance(c, (exp.LT, exp.LTE, exp.GT, exp.GTE)) for c in conjuncts)
        if equalities >= 1 and inequalities == 1:
            return
        token = self._token_after(step.right, TokenType.ON) or self._token_after(step.right, TokenType.USING)
        self.reporter.add("OVERJOIN_ASOF_CONDITION", _tspan(token) or D.pos(step.right.relation, "relation"),
                          input=step.right.display, equalities=equalities, inequalities=inequalities)  # fmt: skip

    def _over_span(self, item: Input) -> tuple[int, int] | None:
        if item.join_window is not None:
            return D.pos(item.join_window, "over")
        return _tspan(self._token_after(item, TokenType.OVER, inside=True))

    def _check_lookup_window(self, step: JoinStep) -> None:
        item = step.right
        version = item.node.args.get("version")
        swallowed = version is not None and isinstance(version.args.get("expression"), exp.Window)
        if item.kind == "lookup" and (item.join_window is not None or swallowed):
            self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", self._over_span(item),
                              input=item.display,
                              detail="a FOR SYSTEM_TIME AS OF PROCTIME() lookup input takes no window")  # fmt: skip

    def _check_window_qualifiers(self) -> None:
        """``JOIN TradeStream OVER t ... t.amount``: ``t`` names a window, not an input (OJ119)."""
        users: dict[str, Input] = {}
        for item in self.block.inputs:
            window = item.join_window
            if window is not None and window.args.get("spec") is None:
                users.setdefault(window.this.name.lower(), item)
        if not users:
            return
        names = {(i.alias or (i.table_name or i.source).split(".")[-1]).lower() for i in self.block.inputs}
        for column in _own_columns(self.block.select):
            table = column.args.get("table")
            if table is None or column.args.get("db") is not None:
                continue
            name = table.name.lower()
            if name in users and name not in names:
                span = _span(column)
                self.reporter.add("OVERJOIN_WINDOW_NAME_AS_INPUT", span, name=self.sql[span[0]:span[0] + len(
                    table.sql(dialect=D.dialect_for(True)))] if span else table.name,
                    reference=self.sql[span[0]:span[1] + 1] if span else column.sql(),
                    input=users[name].source, column=column.name)  # fmt: skip

    # ---- schemas ---------------------------------------------------------------------------

    def _check_schemas(self) -> None:
        assert self.schemas is not None
        for item in self.block.inputs:
            item.columns = self.schemas.columns_of(item)
            self._resolve_rowtime(item)
        for step in self.block.steps:
            self._check_using(step)
            self._check_natural(step)
        self._check_ambiguous()

    def _resolve_rowtime(self, item: Input) -> None:
        order = _order_column(item.spec) if item.spec is not None else None
        if order is not None:
            item.rowtime, item.rowtime_from, span = order.name, "order", _span(order)
        elif item.watermark is not None and isinstance(item.watermark.this, exp.Column):
            item.rowtime, item.rowtime_from = item.watermark.this.name, "watermark"
            span = _span(item.watermark.this)
        elif (monotonic := self._monotonic_column(item)) is not None:
            # GROUP BY STEP(MONOTONIC(col) BY ...): col is the input's rowtime (semantics.md §11).
            item.rowtime, item.rowtime_from, span = monotonic.name, "monotonic", _span(monotonic)
        elif (sorted_by := self._sort_column(item)) is not None:
            # ORDER BY col WITHIN ... (s-Server's t-sort): col is the input's rowtime (semantics.md §11).
            item.rowtime, item.rowtime_from, span = sorted_by.name, "order", _span(sorted_by)
        elif item.columns is not None and "rowtime" in item.columns:
            item.rowtime, item.rowtime_from = "ROWTIME", "column"
            span = D.pos(item.relation, "relation")
        else:
            if item.columns is not None and item.known_stream and item.kind in ("table", "subquery"):
                self.reporter.add(
                    "OVERJOIN_NO_ROWTIME", D.pos(item.relation, "relation"), input=item.display, source=item.source
                )
            return
        kind = (item.columns or {}).get(item.rowtime.lower())
        if kind is not None and item.known_stream and not _is_timestamp(kind):
            self.reporter.add("OVERJOIN_ROWTIME_NOT_TIMESTAMP", span, column=item.rowtime,
                              input=item.display, type=kind)  # fmt: skip

    def _monotonic_column(self, item: Input) -> exp.Column | None:
        """The column of ``item`` its block's GROUP BY floors as ``MONOTONIC(col)`` (the JVM's rule:
        the input it is qualified with, else the first)."""
        group = self.block.select.args.get("group")
        if group is None:
            return None
        for node in _time_floors(self.block.select):
            if not any(node is x for g in group.expressions for x in g.walk()):
                continue
            arg = node.this
            declared = isinstance(arg, exp.Anonymous) and str(arg.this).upper() == "MONOTONIC"
            if not declared or len(arg.expressions) != 1:
                continue
            col = arg.expressions[0]
            if not isinstance(col, exp.Column):
                continue
            owner = (
                self.block.inputs[0]
                if not col.table
                else next((i for i in self.block.inputs if (i.alias or i.source).lower() == col.table.lower()), None)
            )
            if owner is item:
                return col
        return None

    def _sort_column(self, item: Input) -> exp.Column | None:
        """The column of ``item`` its block's t-sort (``ORDER BY col WITHIN ...``) sorts by, when it is
        not ROWTIME (the JVM's rule: the input it is qualified with, else the first)."""
        order = self.block.select.args.get("order")
        if not isinstance(order, D.OjOrder) or not order.expressions:
            return None
        col = order.expressions[0].this
        if not isinstance(col, exp.Column) or col.name.upper() == "ROWTIME" or col.args.get("db"):
            return None
        owner = (
            self.block.inputs[0]
            if not col.table
            else next((i for i in self.block.inputs if (i.alias or i.source).lower() == col.table.lower()), None)
        )
        return col if owner is item else None

    def _left_columns(self, step: JoinStep) -> dict[str, str] | None:
        merged: dict[str, str] = {}
        for item in self._left_inputs(step):
            if item.columns is None:
                return None
            merged.update(item.columns)
        return merged

    def _rowtimes(self, items: Iterable[Input]) -> set[str]:
        return {i.rowtime.lower() for i in items if i.rowtime}

    def _check_using(self, step: JoinStep) -> None:
        using = step.join.args.get("using") or []
        left = self._left_columns(step)
        right = step.right.columns
        rowtimes = self._rowtimes([*self._left_inputs(step), step.right])
        for ident in using:
            name = ident.name
            if name.lower() in rowtimes or name.lower() == "rowtime":
                owner = next((i for i in [*self._left_inputs(step), step.right]
                              if i.rowtime and i.rowtime.lower() == name.lower()), step.right)  # fmt: skip
                self.reporter.add("OVERJOIN_USING_ROWTIME", _span(ident), column=name, input=owner.display)
            elif left is not None and right is not None and (name.lower() not in left or name.lower() not in right):
                self.reporter.add("OVERJOIN_USING_UNKNOWN_COLUMN", _span(ident), column=name,
                                  left=_names(self._left_inputs(step)), right=step.right.display)  # fmt: skip

    def _check_natural(self, step: JoinStep) -> None:
        if step.method != "NATURAL":
            return
        left, right = self._left_columns(step), step.right.columns
        if left is None or right is None:
            return
        rowtimes = self._rowtimes([*self._left_inputs(step), step.right]) | {"rowtime"}
        if not (set(left) & set(right)) - rowtimes:
            token = self._token_before(step.right, {"NATURAL"})
            self.reporter.add("OVERJOIN_NATURAL_NO_COMMON_COLUMN", _tspan(token),
                              left=_names(self._left_inputs(step)), right=step.right.display)  # fmt: skip

    def _check_ambiguous(self) -> None:
        merged = self._merged_names()
        aliases = {e.alias.lower() for e in self.block.select.expressions if e.alias}
        for column in _own_columns(self.block.select):
            name = column.name.lower()
            if column.table or name == "rowtime" or name in merged or name in aliases:
                continue
            owners = [i for i in self.block.inputs if i.columns is not None and name in i.columns]
            if len(owners) >= 2:
                self.reporter.add("OVERJOIN_AMBIGUOUS_COLUMN", _span(column.this), column=column.name,
                                  inputs=_names(owners),
                                  example=f"{owners[0].ref}.{column.name}")  # fmt: skip

    def _merged_names(self) -> set[str]:
        names: set[str] = set()
        for step in self.block.steps:
            names |= {i.name.lower() for i in step.join.args.get("using") or []}
            if step.method == "NATURAL":
                left, right = self._left_columns(step), step.right.columns
                if left is not None and right is not None:
                    names |= set(left) & set(right)
        return names

    # ---- token look-ups ----------------------------------------------------------------------

    def _token_after(self, item: Input, token_type: TokenType, inside: bool = False) -> Token | None:
        span = D.pos(item.relation, "relation")
        start = (span[0] if inside else span[1]) if span else 0
        return next((t for t in self.tokens if t.start > start and t.token_type == token_type), None)

    def _token_before(self, item: Input, words: set[str]) -> Token | None:
        span = D.pos(item.relation, "relation")
        if span is None:
            return None
        found = None
        for token in self.tokens:
            if token.start >= span[0]:
                break
            if token.text.upper() in words:
                found = token
        return found

    def _join_keyword_span(self, step: JoinStep) -> tuple[int, int] | None:
        span = D.pos(step.right.relation, "relation")
        if span is None:
            return None
        before = [t for t in self.tokens if t.end < span[0]]
        words = {"JOIN", "LEFT", "RIGHT", "FULL", "OUTER", "INNER", "NATURAL", "ASOF", "CROSS"}
        first = None
        for token in reversed(before):
            if token.text.upper() not in words:
                break
            first = token
        return _tspan(first) if first else span
