"""The checks of one join input's window (docs/syntax.md, docs/semantics.md §2): frames,
sizes, intervals and their units."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from overjoin import dialect as D
from overjoin import intervals
from overjoin.errors import condition

if TYPE_CHECKING:
    from overjoin.validator.checks import Context

from overjoin.validator.common import (
    _first_span,
    _order_column,
    _spec_text,
    _sql,
    _syntax_error,
    _token_at,
)
from overjoin.validator.model import (
    Input,
    Window,
)


class WindowChecker:
    """Checks one join window spec and computes its :class:`Window`, or ``None`` when invalid."""

    def __init__(
        self, ctx: Context, item: Input | None, spec: D.JoinWindowSpec | None, display: str = "", window: str = ""
    ) -> None:
        self.ctx = ctx
        self.item = item
        self.spec = spec
        self.ok = True
        # What errors call the window. ``display``: the join input it windows (``input`` of the
        # join-only codes); ``window``: the phrase the interval and frame errors read in the middle
        # of a sentence, as the JVM's WindowNames writes it: the join window of an input, a window
        # function's window (docs/semantics.md §12), the stagger window (§13).
        self.display = item.display if item is not None else display
        self.window = window or (f"the join window of {item.display}" if item is not None else f"the window {display}")

    def error(self, name: str, span: tuple[int, int] | None, **params: Any) -> None:
        self.ok = False
        entry = condition(name)
        names = {"input": self.display, "window": self.window}
        # The parameters the JVM gives the same condition: those its message or hint names.
        named = {k: v for k, v in names.items() if f"<{k}>" in entry.message + entry.hint}
        self.ctx.reporter.add(name, span, **named, **params)

    def check(self) -> Window | None:
        spec = self.spec
        assert spec is not None
        kind = spec.args.get("kind")
        self._check_order()  # the JVM reads ORDER BY before it looks for the frame
        if not self.ok:
            return None
        if not kind:
            if spec.args.get("partition_by"):
                self.error("OVERJOIN_WINDOW_PARTITION_BY", D.pos(spec, "partition"),
                           detail="it is not followed by a RANGE or ROWS frame")  # fmt: skip
            else:
                close = D.pos(spec, "close")
                token = _token_at(self.ctx.tokens, close[0]) if close else self.ctx.tokens[-1]
                _syntax_error(self.ctx.reporter, token, "expected RANGE or ROWS in the join window")
                self.ok = False
            return None
        start, end = spec.args.get("start"), spec.args.get("end")
        a = self._bound(start, kind)
        b = self._bound(end, kind) if end is not None else 0
        if not self.ok or a is None or b is None:
            return None
        if a < b:
            self.error("OVERJOIN_WINDOW_BOUNDS_ORDER", D.pos(spec, "between"),
                       start=self._written(start), end=self._written(end))  # fmt: skip
            return None
        if kind == "ROWS" and b > 0:
            self.ctx.reporter.add("OVERJOIN_UNSUPPORTED_SYNTAX.ROWS_ENDING_BEFORE_CURRENT_ROW", D.pos(end, "bound"),
                                  window=self.window)  # fmt: skip
            return None
        order = _order_column(spec)
        return Window(kind, a, b, bool(spec.args.get("partition_by")), order.name if order else None,
                      "over", _spec_text(spec))  # fmt: skip

    def _written(self, node: exp.Expr | None) -> str:
        """The text of a bound or interval exactly as the user wrote it."""
        spans = [
            span
            for sub in (node.walk() if node is not None else [])
            if sub._meta
            for span in sub.meta.get("oj", {}).values()
        ]
        if not spans:
            return _sql(node) if node is not None else ""
        return self.ctx.sql[min(a for a, _ in spans) : max(b for _, b in spans) + 1]

    def _check_order(self) -> None:
        if self.spec is None:
            return
        order = self.spec.args.get("order")
        if order and _order_column(self.spec) is None:
            span = D.pos(self.spec, "order")
            end = D.pos(self.spec, "order_end")
            text = self.ctx.sql[span[0] : end[1] + 1] if span and end else _sql(order[0])
            self.error("OVERJOIN_WINDOW_ORDER_BY", (span[0], end[1]) if span and end else span, expression=text)

    def _bound(self, bound: D.FrameBound | None, kind: str) -> int | None:
        """The bound's distance back from the current row (µs for RANGE, rows for ROWS)."""
        if bound is None:
            return 0
        span = D.pos(bound, "bound")
        if bound.args.get("unbounded"):
            self.error("OVERJOIN_WINDOW_UNBOUNDED", (span[0], span[0] + len("UNBOUNDED") - 1) if span else None)
            return None
        side = bound.args["side"]
        if side == "CURRENT ROW":
            return 0
        size = bound.this
        value = self.range_size(size) if kind == "RANGE" else self._rows(size)
        if side == "FOLLOWING":
            word = (span[1] - len("FOLLOWING") + 1, span[1]) if span else None
            self.error("OVERJOIN_WINDOW_FOLLOWING", word)
            return None
        return value

    def _rows(self, size: exp.Expr) -> int | None:
        if isinstance(size, exp.Neg):
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(size, "minus"), size=self._written(size))
            return None
        if isinstance(size, exp.Literal) and re.fullmatch(r"\d+", size.name):
            if intervals.fits_bigint(size.name):
                return int(size.name)
            problem = intervals.expected("rowsTooLarge")
            self.ctx.reporter.add("OVERJOIN_SYNTAX_ERROR", D.pos(size, "value"), token=f"'{size.name}'", detail=problem)
            self.ok = False
            return None
        if isinstance(size, D.Duration):
            # A number as the JVM's lexer reads it (1.5.5): reported whole, as the JVM does.
            self.ctx.reporter.add("OVERJOIN_SYNTAX_ERROR", D.pos(size, "value"), token=f"'{size.name}'",
                                  detail="expected a row count PRECEDING or CURRENT ROW")  # fmt: skip
            self.ok = False
            return None
        first = _first_span(size)
        token = _token_at(self.ctx.tokens, first[0]) if first else self.ctx.tokens[0]
        _syntax_error(self.ctx.reporter, token, "expected a row count PRECEDING or CURRENT ROW")
        self.ok = False
        return None

    def range_size(self, size: exp.Expr) -> int | None:
        """Microseconds of a RANGE size (interval or duration), reporting what is wrong with it."""
        if isinstance(size, exp.Neg):
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(size, "minus"), size=self._written(size))
            return None
        if isinstance(size, D.WindowInterval):
            return self._interval(size)
        text = size.name if isinstance(size, (D.Duration, exp.Literal)) else _sql(size)
        micros = intervals.duration(text)
        if micros is None:
            self.ctx.reporter.add("OVERJOIN_BAD_DURATION", D.pos(size, "value"), literal=text)
            self.ok = False
        return micros

    def _interval(self, node: D.WindowInterval) -> int | None:
        """The twin of the JVM's ``parseInterval`` (docs/syntax.md, "Interval values")."""
        pairs = [node, *(node.args.get("more") or [])]
        for pair in pairs:
            for key, precision_key in (("unit", "precision"), ("to", "to_precision")):
                if not self._unit_ok(pair, key, precision_key):
                    return None
        literal = node.this
        body = literal.name.strip()
        unit = intervals.base_unit(node.args["unit"]) if node.args.get("unit") else None
        to = intervals.base_unit(node.args["to"]) if node.args.get("to") else None
        minus = bool(node.args.get("negative"))
        if unit is not None and literal.is_string:
            negative = minus or body.startswith("-")
            if negative:
                self._negative(node)
                return None
            unsigned = body[1:] if body[:1] in ("-", "+") and body else body
            value = intervals.fields(unsigned, unit, to) if to else intervals.single(unsigned, unit)
            return self._value(value, node, literal, f"{unit} TO {to}" if to else unit)
        if unit is None:
            found = intervals.split_pairs(body) if literal.is_string else None
            if found is None:
                return self._value(intervals.BadValue(intervals.expected("multiUnit")), node, literal, "interval")
            if minus or any(n.startswith("-") for n, _ in found):
                self._negative(node)
                return None
            return self._value(intervals.pairs(found), node, literal, "interval")
        # Spark's unquoted form: INTERVAL 5 SECONDS [3 MILLISECONDS ...].
        if minus:
            self._negative(node)
            return None
        total = 0
        for pair in pairs:
            pair_unit = intervals.base_unit(pair.args["unit"])
            part = self._value(intervals.single(pair.this.name, pair_unit), pair, pair.this, pair_unit)
            if part is None:
                return None
            total += part
        return self._value(total if total < 2**63 else intervals.BadValue(intervals.expected("tooLarge")),
                           pairs[-1], pairs[-1].this, intervals.base_unit(pairs[-1].args["unit"]))  # fmt: skip

    def _unit_ok(self, node: D.WindowInterval, key: str, precision_key: str) -> bool:
        word = node.args.get(key)
        if not word:
            return True
        unit = intervals.base_unit(word)
        if unit in intervals.lexicon()["variableUnits"]:
            self.error("OVERJOIN_WINDOW_VARIABLE_UNIT", D.pos(node, key), unit=unit)
            return False
        precision = node.args.get(precision_key)
        if precision is not None and int(precision) > intervals.lexicon()["maxPrecision"]:
            self.error("OVERJOIN_WINDOW_BAD_PRECISION", D.pos(node, precision_key), precision=precision, unit=unit)
            return False
        return True

    def _negative(self, node: D.WindowInterval) -> None:
        self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(node, "interval"), size=self._written(node))

    def _value(self, value: intervals.Result, node: D.WindowInterval, literal: exp.Expr, unit: str) -> int | None:
        if isinstance(value, intervals.VariableUnit):
            self.error("OVERJOIN_WINDOW_VARIABLE_UNIT", D.pos(node, "literal"), unit=value.unit)
            return None
        if isinstance(value, intervals.BadValue):
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=self._text(node, "literal"),
                       unit=unit, detail=value.detail)  # fmt: skip
            return None
        return value

    def _text(self, node: exp.Expr, part: str) -> str:
        span = D.pos(node, part)
        return self.ctx.sql[span[0] : span[1] + 1] if span else ""
