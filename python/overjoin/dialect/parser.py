"""overjoin's sqlglot parser: Spark's, plus the hooks listed in :mod:`overjoin.dialect`."""

from __future__ import annotations

import datetime
import re
import typing as t

from sqlglot import exp
from sqlglot.parsers.spark import SparkParser
from sqlglot.tokens import Token, TokenType

from overjoin import intervals
from overjoin.dialect.expressions import (
    OJ_RELATIONS,
    GroupWindow,
    OjJoin,
    OjOrder,
    OjSelect,
    StaggerWindow,
    TimeFloorSteps,
    TimeStep,
    Watermark,
)
from overjoin.dialect.expressions import mark as _mark
from overjoin.dialect.expressions import (
    retype as _retype,
)
from overjoin.dialect.windows import UNIT_WORDS, JoinWindowGrammar

# Tokens after which a bare STREAM in a select list must be a column, not the keyword.
_NOT_AFTER_STREAM_KEYWORD = frozenset(
    {
        TokenType.FROM, TokenType.COMMA, TokenType.DOT, TokenType.ALIAS, TokenType.L_PAREN,
        TokenType.R_PAREN, TokenType.SEMICOLON, TokenType.WHERE, TokenType.GROUP_BY,
        TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT, TokenType.UNION, TokenType.EXCEPT,
        TokenType.INTERSECT, TokenType.WINDOW, TokenType.EQ, TokenType.NEQ, TokenType.LT,
        TokenType.GT, TokenType.LTE, TokenType.GTE, TokenType.PLUS, TokenType.DASH,
        TokenType.SLASH,
        TokenType.PERCENT, TokenType.DPIPE, TokenType.AND, TokenType.OR, TokenType.IS,
        TokenType.IN, TokenType.LIKE, TokenType.BETWEEN, TokenType.COLON, TokenType.DCOLON,
        TokenType.L_BRACKET, TokenType.INTO, TokenType.OVER, TokenType.NOT, TokenType.RLIKE,
        TokenType.ILIKE, TokenType.CARET, TokenType.AMP, TokenType.PIPE, TokenType.LATERAL,
    }
)  # fmt: skip

# Tokens that can start a Lenses duration or an interval after WITHIN.
_DURATION_START = frozenset({TokenType.NUMBER, TokenType.INTERVAL, TokenType.DASH, TokenType.VAR, TokenType.STRING})

_IDENTIFIER_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


# The units of KDA's template tumbling window (fixed lengths; plural spellings read as singular).
_FIXED_UNITS = frozenset({"SECOND", "MINUTE", "HOUR", "DAY"})
_EPOCH = datetime.datetime(1970, 1, 1)
_TIMESTAMP_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?")


def _unit_of(token: Token) -> str:
    return token.text.upper().removesuffix("S")


def _epoch_micros(text: str) -> int | None:
    """A TIMESTAMP literal's text as microseconds since the epoch, UTC (``TimeFloorParser.epochMicros``)."""
    m = _TIMESTAMP_TEXT.fullmatch(text.strip())
    if m is None:
        return None
    y, mo, d, h, mi, s, f = m.groups()
    try:
        when = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError:
        return None
    return (when - _EPOCH) // datetime.timedelta(microseconds=1) + int(((f or "") + "000000000")[:6])


# Calcite's group window functions and how many arguments each takes, its time included.
_GROUP_WINDOW_ARITY = {"TUMBLE": (2, 3), "HOP": (3, 4), "SESSION": (2, 2)}
_GROUP_WINDOW_FUNCTIONS = frozenset(
    name for kind in _GROUP_WINDOW_ARITY for name in (kind, f"{kind}_START", f"{kind}_END")
)
ALIGNMENT_EXPECTED = "a TIME literal such as TIME '0:12' (the time of day the windows are aligned to)"
_DURATION_EXPECTED = "Expected a duration such as 5s or INTERVAL '5' SECOND"


def group_window_usage(name: str, kind: str) -> str:
    """What a call of ``name`` takes (``GroupWindowParser.usage``)."""
    if kind == "TUMBLE":
        return f"{name}(time, size [, TIME 'alignment'])"
    if kind == "HOP":
        return f"{name}(time, slide, size [, TIME 'alignment'])"
    return f"{name}(time, gap)"


# What may follow the WITHIN of a t-sort: the JVM's ClauseWords and SetOperators (a comma, or the block's end, too).
_AFTER_SORT_WITHIN = frozenset(
    {"WHERE", "GROUP", "HAVING", "QUALIFY", "ORDER", "SORT", "CLUSTER", "DISTRIBUTE", "LIMIT", "OFFSET", "LATERAL",
     "WINDOW", "UNION", "INTERSECT", "EXCEPT", "MINUS"}
)  # fmt: skip

_END_OF_SORT_KEY = frozenset({TokenType.COMMA, TokenType.R_PAREN, TokenType.SEMICOLON, TokenType.SENTINEL})

# Words a select list cannot start with (a SELECT STREAM block is overjoin's: these are its keywords).
_NOT_A_SELECT_ITEM = frozenset({"ON", "USING", "JOIN", "INNER", "CROSS", "NATURAL", "OUTER"})


def _step_expected(token: Token | None, sql: str) -> str:
    """What STEP(ts BY ...) takes, said at a token that is not it (a quoted value is the interval
    without its INTERVAL: the fix is named); the twin of ``TimeFloorParser.stepExpected``."""
    if token is not None and token.token_type == TokenType.STRING and sql[token.start : token.start + 1] == "'":
        return (
            "Expected an INTERVAL literal such as INTERVAL '1' MINUTE after BY, not a string: write INTERVAL "
            f"{sql[token.start : token.end + 1]}; or a number, when the time is a number"
        )
    return "Expected an INTERVAL literal such as INTERVAL '1' MINUTE after BY, or a number, when the time is a number"


class OverjoinParser(JoinWindowGrammar):
    """Spark's parser plus the hooks listed in the module docstring."""

    # Set while a SELECT STREAM's projections are parsed, consumed by the OjSelect it belongs to.
    _oj_pending_select: dict[str, t.Any] | None = None

    # s-Server's `CREATE VIEW v DESCRIPTION '...' AS`: Spark's COMMENT, read in streaming
    # statements only (the validator refuses it elsewhere, as Spark does).
    PROPERTY_PARSERS = {
        **SparkParser.PROPERTY_PARSERS,
        "DESCRIPTION": lambda self: self._parse_description(),
    }

    # A block's ORDER BY may be s-Server's t-sort: ORDER BY key WITHIN <duration> [, keys].
    QUERY_MODIFIER_PARSERS = {
        **SparkParser.QUERY_MODIFIER_PARSERS,
        TokenType.ORDER_BY: lambda self: ("order", self._parse_block_order()),
    }

    # Set while a block's ORDER BY reads its first key (the one WITHIN may follow).
    _oj_first_order_key = False

    # KDA's STEP(ts BY INTERVAL '60' SECOND); STEP(...) without BY stays an ordinary call.
    # FLOOR(ts TO unit), and Calcite's CEIL(ts TO unit) (CEILING too): checked as the JVM reads them.
    FUNCTION_PARSERS = {
        **SparkParser.FUNCTION_PARSERS,
        "STEP": lambda self: self._parse_step(),
        "FLOOR": lambda self: self._parse_floor(),
        "CEIL": lambda self: self._parse_ceil(),
        "CEILING": lambda self: self._parse_ceil(),
        **{name: (lambda self: self._parse_group_window()) for name in _GROUP_WINDOW_FUNCTIONS},
    }

    # SESSION(...) is Calcite's session window in GROUP BY: a function name there.
    FUNC_TOKENS = {*SparkParser.FUNC_TOKENS, TokenType.SESSION}

    # The token indices where a FROM item starts: TUMBLE(...)/HOP(...) there is a window table
    # function (docs/semantics.md §7), not a group window.
    _oj_table_starts: set[int] = set()

    def _parse_step(self) -> exp.Expr:
        start = self._prev
        index = self._index
        this = self._parse_assignment()
        if not self._match_text_seq("BY"):
            self._retreat(index)
            args = self._parse_csv(self._parse_lambda)
            return self.expression(exp.Anonymous(this="STEP", expressions=args))
        by_token = self._prev
        token = self._curr
        by: exp.Expr
        if token and token.token_type == TokenType.INTERVAL:
            by = self._parse_window_interval()
        elif token and self._number_run() is not None:
            # The number as the JVM's lexer reads it (10L, 1.2.3: one token there), judged whole.
            first, last = t.cast(tuple[int, int], self._number_run())
            self._skip_to(last)
            by = self.expression(exp.Literal.number(self.sql[first : last + 1]))
            by.meta.setdefault("oj", {})["value"] = (first, last)
        else:
            self.raise_error(_step_expected(token, self.sql))
            by = exp.Null()
        node = self.expression(TimeStep(this=this, by=by))
        _mark(node, "step", start)
        _mark(node, "by", by_token)
        return node

    def _parse_floor(self) -> exp.Expr:
        """``FLOOR(x)``, ``FLOOR(ts TO unit)`` as Spark's parser reads them, and KDA's template
        tumbling window ``FLOOR((ts - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO SECOND)``
        (:class:`TimeFloorSteps`), checked as ``TimeFloorParser.floorOfDifference`` checks it."""
        found = self._floor_steps_tokens()
        if found is None:
            self._check_unit_call("floor")
            return self._parse_ceil_floor(exp.Floor)
        close, unit_at, to_at, end = found
        tokens = self._tokens
        unit = _unit_of(tokens[unit_at])
        minus = self._depth0(self._index + 1, close, TokenType.DASH)
        open_token = self._curr
        shape = (
            "Expected the difference of the time and a TIMESTAMP literal, as in "
            f"(ts - TIMESTAMP '1970-01-01 00:00:00') {unit}"
        )
        # The JVM's order: the step, TO, the difference, its literal, the unit after TO.
        steps: exp.Expr | None = None
        after = unit_at + 1
        if after < to_at and tokens[after].token_type == TokenType.SLASH:
            number = tokens[after + 1]
            text = ""
            if after + 1 < to_at and self.sql[number.start : number.start + 1].isdigit():
                text = self.sql[number.start : intervals.number_run_end(self.sql, number.start)]
            if not text.isdigit() or int(text) <= 0:
                self.raise_error(f"Expected a whole number of {unit}S above zero (the step of the window)", number)
            steps = exp.Literal.number(text)
            after += 2
        if after != to_at:
            self.raise_error(
                "Expected TO after the step, as in FLOOR((ts - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO SECOND)",
                tokens[after],
            )
        start = self._index + 1
        if minus is None or minus == start:
            self.raise_error(shape, tokens[close if minus is None else minus])
        assert minus is not None
        literal = tokens[minus + 2] if minus + 2 < close else None
        if (
            tokens[minus + 1].text.upper() != "TIMESTAMP"
            or literal is None
            or literal.token_type != TokenType.STRING
            or minus + 3 != close
        ):
            self.raise_error(shape, tokens[minus + 1])
        assert literal is not None
        if _epoch_micros(literal.text) is None:
            self.raise_error(
                "Expected a TIMESTAMP literal such as '1970-01-01 00:00:00' (the origin of the windows)", literal
            )
        to = tokens[to_at + 1] if to_at + 1 < end else tokens[end]
        if to_at + 1 >= end or to.token_type not in _IDENTIFIER_TOKENS or _unit_of(to) != unit:
            self.raise_error(f"Expected {unit}: the difference is in {unit}S, and is floored to whole {unit}S", to)
        if to_at + 2 < end:
            self.raise_error("Expected ')' after the unit", tokens[to_at + 2])
        self._advance()
        difference = self._parse_assignment()
        if not isinstance(difference, exp.Sub) or not self._match(TokenType.R_PAREN):
            self.raise_error(shape, tokens[minus])
            return exp.Null()
        while self._index < end:
            self._advance()
        node = self.expression(
            TimeFloorSteps(
                this=difference.this,
                origin=difference.expression,
                unit=unit,
                steps=steps,
                to=exp.var(to.text),
            )
        )
        _mark(node, "floor", open_token)
        _mark(node, "to", to)
        return node

    def _parse_ceil(self) -> exp.Expr:
        """``CEIL(x)`` and Calcite's ``CEIL(ts TO unit)`` (or ``CEILING``): ``ts`` rounded up to the
        end of its unit (docs/semantics.md §11)."""
        self._check_unit_call("round up")
        return self._parse_ceil_floor(exp.Ceil)

    def _check_unit_call(self, verb: str) -> None:
        """``FLOOR``/``CEIL`` with a ``TO`` in its parentheses, as ``TimeFloorParser`` reads it: a
        time before ``TO``, then one unit word of ``floorUnits``, then ``)``."""
        tokens, i = self._tokens, self._index
        end = self._matching(i - 1) if i >= 1 else None
        if end is None:
            return
        to = next(
            (k for k in range(i, end) if tokens[k].text.upper() == "TO" and self._depth(i - 1, k) == 1),
            None,
        )
        if to is None:
            return
        units = intervals.lexicon()["floorUnits"]
        if to == i:
            self.raise_error(f"Expected the time to {verb} before TO", tokens[to])
        elif to + 1 >= end:
            self.raise_error(f"Expected a unit ({', '.join(units)})", tokens[end])
        elif tokens[to + 1].token_type != TokenType.VAR or _unit_of(tokens[to + 1]) not in units:
            self.raise_error(f"Expected a unit ({', '.join(units)})", tokens[to + 1])
        elif to + 2 < end:
            self.raise_error("Expected ')' after the unit", tokens[to + 2])

    def _parse_group_window(self) -> exp.Expr:
        """Calcite's group windows and their auxiliary functions (``TUMBLE(ts, INTERVAL '1' HOUR)``,
        ``HOP_END(ts, slide, size)``, ...): the time, then each interval read by the join-window
        grammar and checked as ``GroupWindowParser`` checks them, in its order (the number of
        arguments, then each in turn). In ``FROM``, or after a dot, an ordinary call."""
        tokens, at = self._tokens, self._index - 2
        name_token = tokens[at]
        close = self._matching(at + 1)
        if at in self._oj_table_starts or (at > 0 and tokens[at - 1].token_type == TokenType.DOT) or close is None:
            args = self._parse_csv(self._parse_lambda)
            return self.expression(exp.Anonymous(this=name_token.text, expressions=args))
        name = name_token.text.upper()
        kind = next(k for k in _GROUP_WINDOW_ARITY if name == k or name.startswith(k + "_"))
        role = name[len(kind) + 1 :] or None
        usage = f"Expected {group_window_usage(name, kind)}"
        low, high = _GROUP_WINDOW_ARITY[kind]
        starts = self._argument_starts(at + 2, close)
        if len(starts) < low:
            self.raise_error(usage, tokens[close])
        if len(starts) > high:
            self.raise_error(usage, tokens[starts[high]])
        node = GroupWindow(kind=kind, role=role, expressions=[])
        _mark(node, "name", name_token)
        _mark(node, "call", name_token, tokens[close])
        node.set("this", self._parse_assignment())
        intervals_count = high - 2 if kind == "HOP" else 1
        for n in range(1, len(starts)):
            if not self._match(TokenType.COMMA):
                self.raise_error("Expected ',' or ')' after the time", self._curr)
            first = self._curr
            if n > intervals_count:
                node.set("align", self._parse_alignment(close))
            else:
                node.append("expressions", self._parse_group_interval(close))
            _mark(node, f"arg{n}", first, self._prev)
        if self._index != close:
            self.raise_error("Expected ',' or ')' after the time", self._curr)
        return self.expression(node)

    def _argument_starts(self, start: int, close: int) -> list[int]:
        """The first token of each argument in tokens [start, close), as ``TokenCursor.splitAtCommas``
        splits them (an empty argument is no argument)."""
        starts: list[int] = []
        depth, begin = 0, start
        for k in range(start, close):
            kind = self._tokens[k].token_type
            if kind == TokenType.L_PAREN:
                depth += 1
            elif kind == TokenType.R_PAREN:
                depth -= 1
            elif kind == TokenType.COMMA and depth == 0:
                if k > begin:
                    starts.append(begin)
                begin = k + 1
        if close > begin:
            starts.append(begin)
        return starts

    def _parse_group_interval(self, close: int) -> exp.Expr:
        """An interval argument, read as ``IntervalParser.duration`` reads one."""
        token, nxt = self._curr, self._next
        if (
            token is not None
            and token.token_type == TokenType.DASH
            and (nxt is None or nxt.token_type != TokenType.NUMBER)
        ):
            self.raise_error(_DURATION_EXPECTED, token)
        if (
            token is not None
            and token.token_type == TokenType.STRING
            and nxt is not None
            and nxt.token_type != TokenType.STRING
            and nxt.text.upper() in UNIT_WORDS
        ):
            self.raise_error("Expected INTERVAL before the interval value", token)
        size = self._parse_window_size()
        if size is None:
            self.raise_error(_DURATION_EXPECTED, token)
            return exp.Null()
        if self._curr is not None and self._curr.token_type not in (TokenType.COMMA, TokenType.R_PAREN):
            self.raise_error("Expected ',' or ')' after the interval", self._curr)
        return size

    def _parse_alignment(self, close: int) -> exp.Expr:
        """``TIME 'h:mm[:ss[.f]]'``: the string literal (the validator reads the time of day)."""
        token = self._curr
        if (
            token is None
            or token.text.upper() != "TIME"
            or token.token_type in (TokenType.STRING, TokenType.IDENTIFIER)
        ):
            self.raise_error(f"Expected {ALIGNMENT_EXPECTED}", token)
        self._advance()
        literal = self._curr
        if self._index >= close or literal is None or literal.token_type != TokenType.STRING:
            self.raise_error(f"Expected {ALIGNMENT_EXPECTED}", literal)
        self._advance()
        if self._index < close and self._curr is not None and self._curr.token_type != TokenType.COMMA:
            self.raise_error("Expected ',' or ')' after the TIME literal", self._curr)
        node = exp.Literal.string(literal.text)
        _mark(node, "value", literal)
        return node

    def _floor_steps_tokens(self) -> tuple[int, int, int, int] | None:
        """When FLOOR's argument is ``( ... ) unit ... TO ...``: the indexes of that ``)``, of
        the unit, of TO and of FLOOR's own ``)``; else None (any other FLOOR)."""
        tokens, i = self._tokens, self._index
        if i >= len(tokens) or tokens[i].token_type != TokenType.L_PAREN:
            return None
        if i + 1 < len(tokens) and tokens[i + 1].token_type in (TokenType.SELECT, TokenType.WITH, TokenType.VALUES):
            return None
        close = self._matching(i)
        end = self._matching(i - 1) if close is not None else None
        if close is None or end is None or close + 1 >= end:
            return None
        unit = tokens[close + 1]
        if unit.token_type not in _IDENTIFIER_TOKENS or _unit_of(unit) not in _FIXED_UNITS:
            return None
        to = next(
            (k for k in range(close + 2, end) if tokens[k].text.upper() == "TO" and self._depth(i - 1, k) == 1),
            None,
        )
        if to is None:
            return None
        return close, close + 1, to, end

    def _matching(self, at: int) -> int | None:
        """The index of the ``)`` that closes the ``(`` at ``at``."""
        depth = 0
        for k in range(at, len(self._tokens)):
            kind = self._tokens[k].token_type
            if kind == TokenType.L_PAREN:
                depth += 1
            elif kind == TokenType.R_PAREN:
                depth -= 1
                if depth == 0:
                    return k
        return None

    def _depth(self, at: int, k: int) -> int:
        """How many parentheses opened from ``at`` are still open before token ``k``."""
        depth = 0
        for j in range(at, k):
            kind = self._tokens[j].token_type
            depth += 1 if kind == TokenType.L_PAREN else -1 if kind == TokenType.R_PAREN else 0
        return depth

    def _depth0(self, start: int, stop: int, kind: TokenType) -> int | None:
        """The first token of ``kind`` in [start, stop) outside parentheses opened there."""
        depth = 0
        for k in range(start, stop):
            token = self._tokens[k].token_type
            if token == TokenType.L_PAREN:
                depth += 1
            elif token == TokenType.R_PAREN:
                depth -= 1
            elif token == kind and depth == 0:
                return k
        return None

    def _parse_description(self) -> exp.Expr:
        token = self._prev
        prop = self._parse_property_assignment(exp.SchemaCommentProperty)
        _mark(prop, "description", token)
        return prop

    def reset(self) -> None:
        super().reset()
        self._oj_pending_select = None
        self._oj_table_starts = set()
        self.oj_error = None

    def raise_error(self, message: str, token: Token | None = None) -> None:
        # sqlglot's ParseError only keeps the column of a token's last character; keep the token
        # so that the validator can point at the first one.
        at_end = not token and not self._curr
        self.oj_error = (message, token or self._curr or self._prev, at_end)
        super().raise_error(message, token)  # type: ignore[arg-type]

    def expression(self, instance, token=None, comments=None):  # type: ignore[no-untyped-def]
        pending = self._oj_pending_select
        if pending is not None and type(instance) is exp.Select:
            self._oj_pending_select = None
            instance = _retype(instance, OjSelect)
            instance.set("stream", True)
            if pending["distinct"] is not None:
                instance.set("distinct", pending["distinct"])
            _mark(instance, "stream", pending["token"])
        return super().expression(instance, token=token, comments=comments)

    def _parse_as_command(self, start: Token) -> exp.Command:
        # sqlglot gives up on the statement here; remember where, so that the validator can
        # report a syntax error at the first token it could not handle.
        failed_at = self._curr or self._prev
        command = super()._parse_as_command(start)
        _mark(command, "failed_at", failed_at)
        return command

    # ---- SELECT STREAM --------------------------------------------------------------------

    def _parse_projections(self) -> tuple[list[exp.Expr], list[exp.Expr] | None]:
        stream_token = None
        distinct = None
        if self._at_select_stream():
            stream_token = self._curr
            self._advance()
            if self._match(TokenType.DISTINCT):
                distinct = self.expression(exp.Distinct())
            else:
                self._match(TokenType.ALL)
            first, after = self._curr, self._next
            if (
                first is not None
                and first.text.upper() in _NOT_A_SELECT_ITEM
                and not (after is not None and after.token_type == TokenType.L_PAREN)
            ):
                self.raise_error("Expected a select list after SELECT STREAM")
        projections, exclude = super()._parse_projections()
        if (
            stream_token is not None
            and self._prev is not None
            and self._prev.token_type == TokenType.COMMA
            and self._curr is not None
            and self._curr.token_type == TokenType.FROM
        ):
            # `SELECT STREAM a, FROM b`: FROM is overjoin's keyword, not a column after the comma.
            self.raise_error("Expected an expression")
        if stream_token is not None:
            self._oj_pending_select = {"token": stream_token, "distinct": distinct}
        return projections, exclude

    def _at_select_stream(self) -> bool:
        curr, nxt = self._curr, self._next
        if not curr or curr.token_type != TokenType.VAR or curr.text.upper() != "STREAM":
            return False
        return bool(nxt) and nxt.token_type not in _NOT_AFTER_STREAM_KEYWORD

    # ---- window functions: where their OVER (...) is ---------------------------------------

    def _parse_window(self, this: exp.Expr | None, alias: bool = False) -> exp.Expr | None:
        # The validator reads the frame of a window function in a streaming block with the
        # join-window grammar, as the JVM does (docs/semantics.md §12): keep the offsets of the
        # parentheses after OVER (the start of each), under a key of their own so that no span
        # of the expression changes.
        start = self._index
        window = super()._parse_window(this, alias)
        if alias or not isinstance(window, exp.Window) or window.meta.get("oj_over_parens"):
            return window
        end = self._index
        for k in range(start, end - 1):
            token = self._tokens[k]
            if token.token_type == TokenType.OVER and self._tokens[k + 1].token_type == TokenType.L_PAREN:
                close = self._tokens[end - 1]
                if close.token_type == TokenType.R_PAREN:
                    window.meta["oj_over_parens"] = (self._tokens[k + 1].start, close.start)
                break
        return window

    # ---- WINDOWED BY STAGGER (...) ----------------------------------------------------------

    def _at_stagger(self) -> bool:
        i = self._index
        words = [tok.text.upper() for tok in self._tokens[i : i + 3]]
        return words == ["WINDOWED", "BY", "STAGGER"] and self._tokens[i].token_type == TokenType.VAR

    def _parse_query_modifiers(self, this):  # type: ignore[no-untyped-def]
        this = super()._parse_query_modifiers(this)
        if isinstance(this, exp.Select) and self._curr is not None and self._at_stagger():
            this = _retype(this, OjSelect)
            this.set("stagger", self._parse_stagger())
            if self._curr is not None and self._curr.token_type == TokenType.GROUP_BY:
                self.raise_error(
                    "a block with WINDOWED BY STAGGER is grouped by its PARTITION BY keys; it cannot also have "
                    "GROUP BY (add the grouping expressions to PARTITION BY)"
                )
            this = super()._parse_query_modifiers(this)
        return this

    def _parse_stagger(self) -> StaggerWindow:
        """``WINDOWED BY STAGGER (PARTITION BY keys RANGE size)``: the twin of ``StaggerWindowParser``."""
        start = self._curr
        self._advance(3)
        if not self._match(TokenType.L_PAREN):
            self.raise_error("Expected ( after WINDOWED BY STAGGER")
        node = StaggerWindow(expressions=[])
        if self._curr and self._curr.token_type == TokenType.PARTITION_BY:
            self._advance()
        elif self._match_text_seq("PARTITION"):
            if not self._match_text_seq("BY"):
                self.raise_error("Expected BY after PARTITION")
        else:
            self.raise_error("Expected PARTITION BY in WINDOWED BY STAGGER (...)")
        if self._curr is not None and self._curr.token_type == TokenType.RANGE:
            self.raise_error("Expected an expression after PARTITION BY")
        node.set("expressions", self._parse_csv(self._parse_assignment))
        if not self._match(TokenType.RANGE):
            self.raise_error("Expected RANGE INTERVAL ... after the PARTITION BY keys")
        range_token = self._prev
        size_start = self._curr
        size = self._parse_window_size()
        if size is None:
            self.raise_error("Expected a duration such as 5s or INTERVAL '5' SECOND")
        node.set("this", size)
        _mark(node, "range", range_token)
        _mark(node, "size", size_start, self._prev)
        if not self._match(TokenType.R_PAREN):
            self.raise_error("Expected ) closing WINDOWED BY STAGGER (")
        _mark(node, "stagger", start, self._prev)
        return self.expression(node)

    # ---- GROUP BY window(...) ---------------------------------------------------------------

    def _parse_group(self, skip_group_by_token: bool = False) -> exp.Group | None:
        # sqlglot stops a GROUP BY at the WINDOW keyword, which also names Spark's window()
        # function, common in streaming aggregations: let a leading window( through.
        i = self._index + (0 if skip_group_by_token else 1)
        tokens = self._tokens
        if (
            i + 1 < len(tokens)
            and tokens[i].token_type == TokenType.WINDOW
            and tokens[i + 1].token_type == TokenType.L_PAREN
        ):
            # For this one call only: an instance attribute shadows the class's table.
            self.QUERY_MODIFIER_TOKENS = self.QUERY_MODIFIER_TOKENS - {TokenType.WINDOW}  # type: ignore[misc]
            try:
                return super()._parse_group(skip_group_by_token)
            finally:
                del self.QUERY_MODIFIER_TOKENS
        return super()._parse_group(skip_group_by_token)

    # ---- relations: STREAM t, WATERMARK, OVER ---------------------------------------------

    def _parse_table(self, schema=False, joins=False, alias_tokens=None, parse_bracket=False,  # type: ignore[no-untyped-def]
                     is_db_reference=False, parse_partition=False, consume_pipe=False):  # fmt: skip
        if schema or is_db_reference:
            return super()._parse_table(
                schema=schema, joins=joins, alias_tokens=alias_tokens, parse_bracket=parse_bracket,
                is_db_reference=is_db_reference, parse_partition=parse_partition,
                consume_pipe=consume_pipe,
            )  # fmt: skip
        start = self._curr
        self._oj_table_starts.add(self._index)
        stream = self._at_from_stream()
        if stream:
            self._advance()
            self._oj_table_starts.add(self._index)
            this = self._parse_stream_target(alias_tokens)
        else:
            this = super()._parse_table(
                joins=joins, alias_tokens=alias_tokens, parse_bracket=parse_bracket,
                parse_partition=parse_partition, consume_pipe=consume_pipe,
            )  # fmt: skip
        if this is None:
            return None
        this = self._parse_join_input_suffix(this, alias_tokens)
        if stream:
            this = self.expression(exp.Stream(this=this))
        if start is not None and self._prev is not None:
            _mark(this, "relation", start, self._prev)
        return this

    def _at_from_stream(self) -> bool:
        # Spark 4 reads `FROM stream t` as a streaming relation too; `FROM stream` alone, or
        # followed by a keyword, names a table called stream.
        curr, nxt = self._curr, self._next
        return bool(
            curr
            and curr.token_type == TokenType.VAR
            and curr.text.upper() == "STREAM"
            and nxt
            and (nxt.token_type in _IDENTIFIER_TOKENS or nxt.token_type == TokenType.L_PAREN)
            and nxt.text.upper() not in ("WITHIN", "WATERMARK")
        )

    def _parse_stream_target(self, alias_tokens: t.Any) -> exp.Expr | None:
        if self._match(TokenType.L_PAREN):
            this = self._parse_table_parts()
            self._match_r_paren()
            alias = self._parse_table_alias(alias_tokens=alias_tokens or self.TABLE_ALIAS_TOKENS)
            if alias and this is not None:
                this.set("alias", alias)
            return this
        return super()._parse_table(alias_tokens=alias_tokens)

    def _parse_join_input_suffix(self, this: exp.Expr, alias_tokens: t.Any) -> exp.Expr:
        watermark = window = None
        after_alias = window_first = False
        if not this.args.get("alias"):
            # Spark's WATERMARK clause comes before the alias; OVER (blanked before Spark reads
            # the text) may come before or after either of them.
            while True:
                if watermark is None and self._at_watermark():
                    watermark = self._parse_watermark()
                elif window is None and self._curr and self._curr.token_type == TokenType.OVER:
                    window = self._parse_join_window()
                    window_first = watermark is None
                else:
                    break
            if watermark or window:
                alias = self._parse_table_alias(alias_tokens=alias_tokens or self.TABLE_ALIAS_TOKENS)
                if alias:
                    this.set("alias", alias)
        if window is None and self._curr and self._curr.token_type == TokenType.OVER:
            window = self._parse_join_window()
            after_alias = True
        if watermark is None and window is None:
            return this
        cls = OJ_RELATIONS.get(type(this))
        if cls is None:
            self.raise_error("OVER and WATERMARK can follow only a table, a table function or a subquery")
            return this
        this = _retype(this, cls)
        this.set("watermark", watermark)
        this.set("join_window", window)
        this.set("window_after_alias", after_alias or None)
        this.set("window_first", (window_first and watermark is not None) or None)
        return this

    def _at_watermark(self) -> bool:
        curr = self._curr
        if not curr or curr.token_type != TokenType.VAR or curr.text.upper() != "WATERMARK":
            return False
        index = self._index
        self._advance()
        column = self._parse_column()
        found = column is not None and self._match_text_seq("DELAY", "OF", advance=False)
        self._retreat(index)
        return found

    def _parse_watermark(self) -> Watermark | None:
        if not self._at_watermark():
            return None
        token = self._curr
        self._advance()
        column = self._parse_column()
        self._match_text_seq("DELAY", "OF")
        delay = self._parse_bitwise()
        if delay is None:
            self.raise_error("Expected the watermark delay, for example INTERVAL 10 SECONDS")
        node = self.expression(Watermark(this=column, expression=delay))
        _mark(node, "watermark", token)
        return node

    def _parse_table_alias(self, alias_tokens=None):  # type: ignore[no-untyped-def]
        # WITHIN and WATERMARK are not reserved in Spark: they are clauses here, not aliases,
        # when what follows them fits the clause; so is WINDOWED BY STAGGER.
        if self._at_within() or self._at_watermark() or self._curr.token_type == TokenType.OVER:
            return None
        if self._at_stagger():
            return None
        return super()._parse_table_alias(alias_tokens=alias_tokens)

    # ---- ORDER BY key WITHIN <duration>: s-Server's t-sort ---------------------------------

    def _parse_block_order(self) -> exp.Expr | None:
        """A block's ``ORDER BY``; with ``WITHIN`` after its first key, an :class:`OjOrder` (the twin
        of ``QueryBlockScanner.sortWithin``)."""
        self._oj_first_order_key = True
        try:
            order = self._parse_order()
        finally:
            self._oj_first_order_key = False
        if not isinstance(order, exp.Order) or not order.expressions:
            return order
        found = order.expressions[0].meta.pop("oj_within", None)
        if found is None:
            return order
        size, within_token, size_start, size_end = found
        node = _retype(order, OjOrder)
        node.set("within", size)
        _mark(node, "within", within_token)
        _mark(node, "size", size_start, size_end)
        return node

    def _parse_ordered(self, parse_method=None):  # type: ignore[no-untyped-def]
        first = self._oj_first_order_key
        self._oj_first_order_key = False
        node = super()._parse_ordered(parse_method)
        if first and node is not None and self._at_within():
            within_token = self._curr
            self._advance()
            size_start = self._curr
            size = self._parse_window_size()
            if size is None:
                self.raise_error("Expected a duration such as 5s or INTERVAL '5' SECOND")
            node.meta["oj_within"] = (size, within_token, size_start, self._prev)
            after = self._curr
            if (
                after is not None
                and after.token_type not in _END_OF_SORT_KEY
                and after.text.upper() not in _AFTER_SORT_WITHIN
            ):
                self.raise_error(
                    "Expected , and the next sort key, or the end of ORDER BY "
                    "(WITHIN follows the first key and its ASC)"
                )
        return node

    # ---- joins: WITHIN ----------------------------------------------------------------------

    def _at_within(self) -> bool:
        curr, nxt = self._curr, self._next
        return bool(
            curr
            and curr.token_type == TokenType.VAR
            and curr.text.upper() == "WITHIN"
            and nxt
            and nxt.token_type in _DURATION_START
            and not (nxt.token_type == TokenType.VAR and nxt.text.upper() == "GROUP")
        )

    def _parse_join(self, skip_join_token=False, parse_bracket=False, alias_tokens=None):  # type: ignore[no-untyped-def]
        join = super()._parse_join(
            skip_join_token=skip_join_token, parse_bracket=parse_bracket, alias_tokens=alias_tokens
        )
        if join is None or not self._at_within():
            return join
        within_token = self._curr
        self._advance()
        duration = self._parse_window_size()
        if duration is None:
            self.raise_error("Expected a duration such as 5s or INTERVAL '5' SECOND")
        # Spark's parser fills in ON TRUE for a join written without a condition.
        on = join.args.get("on")
        first = (on is None or on == exp.true()) and not join.args.get("using")
        oj = _retype(join, OjJoin)
        oj.set("within", duration)
        _mark(oj, "within", within_token)
        if first:
            if self._match(TokenType.ON):
                oj.set("on", self._parse_disjunction())
                oj.set("within_first", True)
            elif self._match(TokenType.USING):
                oj.set("on", None)
                oj.set("using", self._parse_using_identifiers())
                oj.set("within_first", True)
        if self._at_within():
            self.raise_error("Expected one WITHIN per join (this join has one already)")
        return oj

    # ---- FOR SYSTEM_TIME AS OF ----------------------------------------------------------

    def _parse_version(self) -> exp.Version | None:
        if self._match_text_seq("FOR", "SYSTEM_TIME", "AS", "OF"):
            return self.expression(exp.Version(this="SYSTEM_TIME", kind="AS OF", expression=self._parse_bitwise()))
        return super()._parse_version()
