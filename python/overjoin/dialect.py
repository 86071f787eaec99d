"""The ``overjoin`` sqlglot dialect: Spark SQL plus the streaming-join syntax of docs/syntax.md.

The dialect subclasses sqlglot's Spark dialect. Its parser hooks add:

* ``SELECT STREAM ...`` (an :class:`OjSelect` with ``stream=True``);
* a join window after a ``FROM`` relation, before or after its alias: ``FROM s OVER (...) AS a``,
  ``FROM s AS a OVER w`` (:class:`JoinWindow` on an :class:`OjTable` / :class:`OjSubquery`);
* Spark's ``WATERMARK col DELAY OF <interval>`` clause after a relation (:class:`Watermark`);
* ``STREAM t`` and ``STREAM(t)`` in ``FROM`` (sqlglot's ``exp.Stream``);
* ``JOIN ... WITHIN <duration>`` before or after the join condition (:class:`OjJoin`);
* ``WINDOW name AS (...)`` definitions written in the join-window grammar (:class:`NamedJoinWindow`);
* ``FOR SYSTEM_TIME AS OF PROCTIME()`` kept as written (sqlglot would turn it into ``TIMESTAMP AS OF``).

``ASOF [LEFT] JOIN`` and ``TUMBLE(...)``/``HOP(...)`` in ``FROM`` already parse in sqlglot's Spark
dialect. The join-window grammar is parsed leniently: ``FOLLOWING``, ``UNBOUNDED``, ``MONTH``,
negative sizes and the like are kept in the tree (with the positions of their tokens in
``node.meta["oj"]``) so that the validator can report them with their own error codes; only text
that fits no reading at all is a syntax error here.

Every node added here is printed back by :class:`Overjoin.Generator`, so
``parse -> generate -> parse`` gives the same tree.
"""

from __future__ import annotations

import typing as t

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import Token, TokenType

from overjoin import intervals

__all__ = [
    "Duration",
    "JoinWindow",
    "JoinWindowSpec",
    "FrameBound",
    "NamedJoinWindow",
    "OjJoin",
    "OjSelect",
    "OjSubquery",
    "OjTable",
    "Overjoin",
    "OverjoinDQ",
    "Watermark",
    "WindowInterval",
    "dialect_for",
    "pos",
]

#: Units a join-window interval may name (plural spellings are Spark's).
UNIT_WORDS = intervals.unit_words()

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
_DURATION_START = frozenset(
    {TokenType.NUMBER, TokenType.INTERVAL, TokenType.DASH, TokenType.VAR, TokenType.STRING}
)

_IDENTIFIER_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


def pos(node: exp.Expr | None, part: str) -> tuple[int, int] | None:
    """Return the ``(start, end)`` character offsets (end inclusive) recorded for ``part`` of ``node``."""
    if node is None or not node._meta:
        return None
    return node.meta.get("oj", {}).get(part)


def _mark(node: exp.Expr, part: str, token: Token | None, end: Token | None = None) -> None:
    """Record where ``part`` of ``node`` was written: the offsets of ``token`` (through ``end``)."""
    if not token:
        return
    node.meta.setdefault("oj", {})[part] = (token.start, (end or token).end)


# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------


class Duration(exp.Expression):
    """A Lenses duration such as ``500ms``, ``5s``, ``10m``, ``1h``, ``1d`` (``this``: the text)."""

    arg_types = {"this": True}


class WindowInterval(exp.Expression):
    """``INTERVAL [-] 'value' unit[(p)] [TO unit[(p)]]`` or Spark's ``INTERVAL '5 seconds'``.

    ``this`` is the value literal, ``unit``/``to`` the unit words as written (upper case),
    ``precision``/``to_precision`` the digits in parentheses, ``negative`` a minus before the value.
    Spark's unquoted ``INTERVAL 1 HOUR 30 MINUTES`` keeps its further pairs in ``more``, each a
    :class:`WindowInterval` of its own.
    """

    arg_types = {
        "this": True,
        "unit": False,
        "precision": False,
        "to": False,
        "to_precision": False,
        "negative": False,
        "more": False,
    }


class TimeStep(exp.Expression):
    """Kinesis Data Analytics' ``STEP(this BY by)`` (docs/semantics.md §11): ``by`` is a
    :class:`WindowInterval` or a number literal."""

    arg_types = {"this": True, "by": True}


class FrameBound(exp.Expression):
    """One bound of a join window frame.

    ``side`` is ``PRECEDING``, ``FOLLOWING`` or ``CURRENT ROW``; ``this`` the size (a
    :class:`WindowInterval`, :class:`Duration`, number, or ``exp.Neg`` of one); ``unbounded`` is set
    for ``UNBOUNDED PRECEDING|FOLLOWING``.
    """

    arg_types = {"this": False, "side": True, "unbounded": False}


class JoinWindowSpec(exp.Expression):
    """``[PARTITION BY ...] [ORDER BY ...] [RANGE|ROWS [BETWEEN] bound [AND bound]]``."""

    arg_types = {
        "partition_by": False,
        "order": False,
        "kind": False,
        "between": False,
        "start": False,
        "end": False,
    }


class JoinWindow(exp.Expression):
    """The window after ``OVER`` on a join input: a name (``this``) or a ``spec``."""

    arg_types = {"this": False, "spec": False}


class NamedJoinWindow(exp.Expression):
    """``name AS (spec)`` in a ``WINDOW`` clause, written in the join-window grammar."""

    arg_types = {"this": True, "spec": True}


class Watermark(exp.Expression):
    """Spark's ``WATERMARK col DELAY OF <interval>`` after a relation."""

    arg_types = {"this": True, "expression": True}


class OjSelect(exp.Select):
    """A ``SELECT`` that may say ``STREAM``."""

    arg_types = {**exp.Select.arg_types, "stream": False}


class OjTable(exp.Table):
    """A table (or table function) in ``FROM`` with a join window and/or a watermark."""

    arg_types = {
        **exp.Table.arg_types,
        "join_window": False,
        "window_after_alias": False,
        "window_first": False,
        "watermark": False,
    }


class OjSubquery(exp.Subquery):
    """A subquery in ``FROM`` with a join window and/or a watermark."""

    arg_types = {
        **exp.Subquery.arg_types,
        "join_window": False,
        "window_after_alias": False,
        "window_first": False,
        "watermark": False,
    }


class OjJoin(exp.Join):
    """A join with Lenses' ``WITHIN <duration>`` (``within_first``: written before ``ON``/``USING``)."""

    arg_types = {**exp.Join.arg_types, "within": False, "within_first": False}


_OJ_RELATIONS: dict[type[exp.Expr], type[exp.Expr]] = {exp.Table: OjTable, exp.Subquery: OjSubquery}


def _retype(node: exp.Expr, cls: type[exp.Expr]) -> exp.Expr:
    """Return ``node`` as an instance of its subclass ``cls``, keeping args, comments and meta."""
    if type(node) is cls:
        return node
    new = cls(**node.args)
    new.comments = node.comments
    if node._meta:
        new.meta.update(node.meta)
    return new


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------


class _OverjoinParser(Spark.Parser):
    """Spark's parser plus the hooks listed in the module docstring."""

    # Set while a SELECT STREAM's projections are parsed, consumed by the OjSelect it belongs to.
    _oj_pending_select: dict[str, t.Any] | None = None
    #: The message and token of the last error raised (and whether it was at the end of the
    #: statement), so that callers can point at it.
    oj_error: tuple[str, Token, bool] | None = None

    # s-Server's `CREATE VIEW v DESCRIPTION '...' AS`: Spark's COMMENT, read in streaming
    # statements only (the validator refuses it elsewhere, as Spark does).
    PROPERTY_PARSERS = {
        **Spark.Parser.PROPERTY_PARSERS,
        "DESCRIPTION": lambda self: self._parse_description(),
    }

    # KDA's STEP(ts BY INTERVAL '60' SECOND); STEP(...) without BY stays an ordinary call.
    FUNCTION_PARSERS = {
        **Spark.Parser.FUNCTION_PARSERS,
        "STEP": lambda self: self._parse_step(),
    }

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
        elif token and token.token_type == TokenType.NUMBER:
            self._advance()
            by = self.expression(exp.Literal.number(token.text))
            _mark(by, "value", token)
        else:
            self.raise_error("Expected an interval such as INTERVAL '60' SECOND, or a number")
            by = exp.Null()
        node = self.expression(TimeStep(this=this, by=by))
        _mark(node, "step", start)
        _mark(node, "by", by_token)
        return node

    def _parse_description(self) -> exp.Expr:
        token = self._prev
        prop = self._parse_property_assignment(exp.SchemaCommentProperty)
        _mark(prop, "description", token)
        return prop

    def reset(self) -> None:
        super().reset()
        self._oj_pending_select = None
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
        projections, exclude = super()._parse_projections()
        if stream_token is not None:
            self._oj_pending_select = {"token": stream_token, "distinct": distinct}
        return projections, exclude

    def _at_select_stream(self) -> bool:
        curr, nxt = self._curr, self._next
        if not curr or curr.token_type != TokenType.VAR or curr.text.upper() != "STREAM":
            return False
        return bool(nxt) and nxt.token_type not in _NOT_AFTER_STREAM_KEYWORD

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
            self.QUERY_MODIFIER_TOKENS = self.QUERY_MODIFIER_TOKENS - {TokenType.WINDOW}
            try:
                return super()._parse_group(skip_group_by_token)
            finally:
                del self.QUERY_MODIFIER_TOKENS
        return super()._parse_group(skip_group_by_token)

    # ---- relations: STREAM t, WATERMARK, OVER ---------------------------------------------

    def _parse_table(self, schema=False, joins=False, alias_tokens=None, parse_bracket=False,  # type: ignore[no-untyped-def,override]
                     is_db_reference=False, parse_partition=False, consume_pipe=False):  # fmt: skip
        if schema or is_db_reference:
            return super()._parse_table(
                schema=schema, joins=joins, alias_tokens=alias_tokens, parse_bracket=parse_bracket,
                is_db_reference=is_db_reference, parse_partition=parse_partition,
                consume_pipe=consume_pipe,
            )  # fmt: skip
        start = self._curr
        stream = self._at_from_stream()
        if stream:
            self._advance()
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
            if alias:
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
                alias = self._parse_table_alias(
                    alias_tokens=alias_tokens or self.TABLE_ALIAS_TOKENS
                )
                if alias:
                    this.set("alias", alias)
        if window is None and self._curr and self._curr.token_type == TokenType.OVER:
            window = self._parse_join_window()
            after_alias = True
        if watermark is None and window is None:
            return this
        cls = _OJ_RELATIONS.get(type(this))
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
        # when what follows them fits the clause.
        if self._at_within() or self._at_watermark() or self._curr.token_type == TokenType.OVER:
            return None
        return super()._parse_table_alias(alias_tokens=alias_tokens)

    # ---- join windows ---------------------------------------------------------------------

    def _parse_join_window(self) -> JoinWindow:
        over = self._curr
        self._advance()
        if self._match(TokenType.L_PAREN):
            open_paren = self._prev
            spec = self._parse_join_window_spec()
            close = self._curr
            if not self._match(TokenType.R_PAREN):
                self.raise_error("Expected a closing parenthesis")
            node = self.expression(JoinWindow(spec=spec))
            _mark(node, "open", open_paren)
            _mark(spec, "close", close)
        else:
            name = self._parse_window_name()
            if name is None:
                self.raise_error("Expected a window specification in parentheses or a window name after OVER")
            node = self.expression(JoinWindow(this=name))
        _mark(node, "over", over)
        return node

    def _parse_window_name(self) -> exp.Identifier | None:
        token = self._curr
        if not token:
            return None
        if token.token_type == TokenType.STRING:
            # s-Server writes window names in double quotes; in Spark's default mode those are
            # string tokens, but after OVER/WINDOW only a name can stand.
            self._advance()
            name = exp.to_identifier(token.text, quoted=True)
        elif token.token_type == TokenType.IDENTIFIER:
            self._advance()
            name = exp.to_identifier(token.text, quoted=True)
        elif token.token_type == TokenType.VAR:
            self._advance()
            name = exp.to_identifier(token.text)
        else:
            return None
        _mark(name, "name", token)
        return name

    def _parse_join_window_spec(self) -> JoinWindowSpec:
        spec = JoinWindowSpec()
        if self._curr and self._curr.token_type == TokenType.PARTITION_BY:
            _mark(spec, "partition", self._curr)
            self._advance()
            spec.set("partition_by", self._parse_csv(self._parse_assignment))
        elif self._match_text_seq("PARTITION", "BY", advance=False):
            _mark(spec, "partition", self._curr)
            self._advance(2)
            spec.set("partition_by", self._parse_csv(self._parse_assignment))
        if self._curr and self._curr.token_type == TokenType.ORDER_BY:
            self._advance()
            _mark(spec, "order", self._curr)
            spec.set("order", self._parse_csv(self._parse_ordered))
            _mark(spec, "order_end", self._prev)
        if self._match_set((TokenType.RANGE, TokenType.ROWS)):
            spec.set("kind", self._prev.text.upper())
            _mark(spec, "kind", self._prev)
            if self._match(TokenType.BETWEEN):
                _mark(spec, "between", self._prev)
                spec.set("between", True)
                spec.set("start", self._parse_frame_bound(spec.args["kind"]))
                if not self._match(TokenType.AND):
                    self.raise_error(f"Expected AND in {spec.args['kind']} BETWEEN ... AND ...")
                spec.set("end", self._parse_frame_bound(spec.args["kind"]))
            else:
                spec.set("start", self._parse_frame_bound(spec.args["kind"]))
        return self.expression(spec)

    def _parse_frame_bound(self, kind: str) -> FrameBound:
        first = self._curr
        if self._match_text_seq("UNBOUNDED"):
            side = self._parse_frame_side()
            bound = FrameBound(side=side, unbounded=True)
        elif self._match_text_seq("CURRENT", "ROW"):
            bound = FrameBound(side="CURRENT ROW")
        else:
            size = self._parse_window_size()
            if size is None:
                self.raise_error(
                    "Expected a row count PRECEDING or CURRENT ROW" if kind == "ROWS"
                    else "Expected a duration such as 5s or INTERVAL '5' SECOND"
                )
            bound = FrameBound(this=size, side=self._parse_frame_side())
        _mark(bound, "bound", first, self._prev)
        return self.expression(bound)

    def _parse_frame_side(self) -> str:
        if self._match_texts(("PRECEDING", "FOLLOWING")):
            return self._prev.text.upper()
        self.raise_error("Expected PRECEDING")
        return "PRECEDING"

    def _parse_window_size(self) -> exp.Expr | None:
        """A size: ``[-] INTERVAL ...``, ``[-] <integer>`` or ``[-] <duration>``."""
        minus = self._prev if self._match(TokenType.DASH) else None
        size = self._parse_size_value()
        if size is None or minus is None:
            return size
        neg = self.expression(exp.Neg(this=size))
        _mark(neg, "minus", minus)
        return neg

    def _parse_size_value(self) -> exp.Expr | None:
        token = self._curr
        if not token:
            return None
        if token.token_type == TokenType.INTERVAL:
            return self._parse_window_interval()
        if token.token_type == TokenType.NUMBER:
            nxt = self._next
            if nxt and nxt.token_type == TokenType.DCOLON and nxt.start == token.start:
                # Spark's typed number literal (5s = SMALLINT 5, 1d = DOUBLE 1): as a window size
                # it is a Lenses duration.
                self._advance(3)
                return self._duration(token)
            self._advance()
            number = self.expression(exp.Literal.number(token.text))
            _mark(number, "value", token)
            return number
        if token.token_type == TokenType.VAR and token.text.upper() not in (
            "PRECEDING", "FOLLOWING", "CURRENT", "UNBOUNDED",
        ):  # fmt: skip
            self._advance()
            return self._duration(token)
        return None

    def _duration(self, token: Token) -> Duration:
        node = self.expression(Duration(this=self.sql[token.start : token.end + 1]))
        _mark(node, "value", token)
        return node

    def _parse_window_interval(self) -> WindowInterval:
        interval_token = self._curr
        self._advance()
        node = WindowInterval()
        _mark(node, "interval", interval_token)
        if self._match(TokenType.DASH):
            node.set("negative", True)
            _mark(node, "minus", self._prev)
        value = self._curr
        if value and value.token_type in (TokenType.STRING, TokenType.NUMBER):
            self._advance()
            literal = (
                exp.Literal.string(value.text)
                if value.token_type == TokenType.STRING
                else exp.Literal.number(value.text)
            )
            node.set("this", literal)
            _mark(node, "literal", value)
        else:
            self.raise_error("Expected an interval value in quotes, such as INTERVAL '5' SECOND")
        if self._at_unit():
            self._parse_interval_unit(node, "unit", "precision")
            more = []
            while (value.token_type == TokenType.NUMBER and self._curr and self._curr.token_type == TokenType.NUMBER
                   and self._next and self._next.text.upper() in UNIT_WORDS):  # fmt: skip
                pair = WindowInterval(this=exp.Literal.number(self._curr.text))
                _mark(pair, "literal", self._curr)
                self._advance()
                self._parse_interval_unit(pair, "unit", "precision")
                more.append(pair)
            if more:
                node.set("more", more)
            if self._match_text_seq("TO"):
                if not self._at_unit():
                    self.raise_error("Expected SECOND, MINUTE, HOUR or DAY")
                self._parse_interval_unit(node, "to", "to_precision")
        elif value and value.token_type == TokenType.NUMBER:
            self.raise_error("Expected a unit such as SECOND, MINUTE, HOUR or DAY")
        elif self._curr and self._curr.token_type == TokenType.VAR and self._curr.text.upper() not in (
            "PRECEDING", "FOLLOWING", "AND",
        ):  # fmt: skip
            self.raise_error("Expected SECOND, MINUTE, HOUR or DAY")
        return self.expression(node)

    def _at_unit(self) -> bool:
        curr = self._curr
        return bool(
            curr
            and curr.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)
            and curr.text.upper() in UNIT_WORDS
        )

    def _parse_interval_unit(self, node: WindowInterval, unit_key: str, precision_key: str) -> None:
        node.set(unit_key, self._curr.text.upper())
        _mark(node, unit_key, self._curr)
        self._advance()
        if self._match(TokenType.L_PAREN):
            digits = self._curr
            if not self._match(TokenType.NUMBER):
                self.raise_error("Expected a precision such as (3)")
            node.set(precision_key, digits.text)
            self._match_r_paren()
            _mark(node, precision_key, digits, self._prev)

    # ---- WINDOW clause ----------------------------------------------------------------------

    def _parse_named_window(self) -> exp.Expr | None:
        index = self._index
        name_token = self._curr
        name = self._parse_window_name()
        if name is not None and self._match(TokenType.ALIAS) and self._match(TokenType.L_PAREN):
            spec = self._try_parse(self._parse_join_window_spec)
            if spec is not None and self._match(TokenType.R_PAREN):
                node = self.expression(NamedJoinWindow(this=name, spec=spec))
                _mark(node, "name", name_token)
                return node
            failure = self.oj_error
        else:
            failure = None
        self._retreat(index)
        window = super()._parse_named_window()
        if window is not None and failure is not None:
            # Keep why the join-window grammar rejected it, in case a join input uses it.
            window.meta["oj_join_error"] = (failure[0], failure[1].start, failure[1].end)
        if window is not None:
            _mark(window, "name", name_token)
        return window

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
        join = _retype(join, OjJoin)
        join.set("within", duration)
        _mark(join, "within", within_token)
        if first:
            if self._match(TokenType.ON):
                join.set("on", self._parse_disjunction())
                join.set("within_first", True)
            elif self._match(TokenType.USING):
                join.set("on", None)
                join.set("using", self._parse_using_identifiers())
                join.set("within_first", True)
        if self._at_within():
            self.raise_error("Expected one WITHIN per join (this join has one already)")
        return join

    # ---- FOR SYSTEM_TIME AS OF ----------------------------------------------------------

    def _parse_version(self) -> exp.Version | None:
        if self._match_text_seq("FOR", "SYSTEM_TIME", "AS", "OF"):
            return self.expression(
                exp.Version(this="SYSTEM_TIME", kind="AS OF", expression=self._parse_bitwise())
            )
        return super()._parse_version()


# --------------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------------


class _StreamMarker(exp.Expression):
    """Printed in the DISTINCT slot of a SELECT STREAM while it is generated."""

    arg_types = {"this": False}


def _interval_sql(gen: Spark.Generator, node: WindowInterval) -> str:
    sign = "-" if node.args.get("negative") else ""
    out = f"INTERVAL {sign}{gen.sql(node, 'this')}"
    for unit_key, precision_key in (("unit", "precision"), ("to", "to_precision")):
        unit = node.args.get(unit_key)
        if unit:
            precision = node.args.get(precision_key)
            out += f"{' TO' if unit_key == 'to' else ''} {unit}{f'({precision})' if precision else ''}"
    for pair in node.args.get("more") or []:
        out += f" {gen.sql(pair, 'this')} {pair.args['unit']}"
    return out


def _bound_sql(gen: Spark.Generator, node: FrameBound) -> str:
    side = node.args["side"]
    if node.args.get("unbounded"):
        return f"UNBOUNDED {side}"
    if side == "CURRENT ROW":
        return side
    return f"{gen.sql(node, 'this')} {side}"


def _spec_sql(gen: Spark.Generator, node: JoinWindowSpec) -> str:
    parts = []
    if node.args.get("partition_by"):
        parts.append(f"PARTITION BY {gen.expressions(node, key='partition_by', flat=True)}")
    if node.args.get("order"):
        parts.append(f"ORDER BY {gen.expressions(node, key='order', flat=True)}")
    kind = node.args.get("kind")
    if kind:
        if node.args.get("between"):
            parts.append(f"{kind} BETWEEN {gen.sql(node, 'start')} AND {gen.sql(node, 'end')}")
        else:
            parts.append(f"{kind} {gen.sql(node, 'start')}")
    return " ".join(parts)


def _window_sql(gen: Spark.Generator, node: JoinWindow) -> str:
    if node.args.get("spec") is not None:
        return f"OVER ({gen.sql(node, 'spec')})"
    return f"OVER {gen.sql(node, 'this')}"


def _relation_sql(gen: Spark.Generator, node: exp.Expr, base: t.Callable[[t.Any], str]) -> str:
    alias = node.args.get("alias")
    window = gen.sql(node, "join_window")
    watermark = gen.sql(node, "watermark")
    after_alias = bool(node.args.get("window_after_alias"))
    # Print the relation without its alias, then the clauses in the order they were written.
    node.set("alias", None)
    try:
        body = base(node)
    finally:
        node.set("alias", alias)
    alias_sql = f" AS {gen.sql(alias)}" if alias is not None else ""
    before = [watermark, window] if not node.args.get("window_first") else [window, watermark]
    out = body + "".join(f" {clause}" for clause in before if clause and (clause != window or not after_alias))
    out += alias_sql
    if window and after_alias:
        out += f" {window}"
    return out


def _join_sql(gen: Spark.Generator, node: OjJoin) -> str:
    within = node.args.get("within")
    if within is None:
        return gen.join_sql(node)
    if not node.args.get("within_first"):
        return f"{gen.join_sql(node)} WITHIN {gen.sql(within)}"
    # WITHIN before ON/USING: print the join, then move WITHIN in front of its condition.
    full = gen.join_sql(node)
    on, using = node.args.get("on"), node.args.get("using")
    if using:
        cond = f" USING ({', '.join(gen.sql(c) for c in using)})"
    else:
        cond = f" ON {gen.sql(on)}"
    if not full.endswith(cond):
        return f"{full} WITHIN {gen.sql(within)}"
    return f"{full[: -len(cond)]} WITHIN {gen.sql(within)}{cond}"


def _version_sql(gen: Spark.Generator, node: exp.Version) -> str:
    if node.name == "SYSTEM_TIME":
        return f"FOR SYSTEM_TIME AS OF {gen.sql(node, 'expression')}"
    return Spark.Generator.version_sql(gen, node)


def _name_sql(gen: Spark.Generator, node: NamedJoinWindow) -> str:
    return f"{gen.sql(node, 'this')} AS ({gen.sql(node, 'spec')})"


class _OverjoinGenerator(Spark.Generator):
    """Spark's generator plus the nodes of this module."""

    TRANSFORMS = {
        **Spark.Generator.TRANSFORMS,
        Duration: lambda self, e: e.name,
        TimeStep: lambda self, e: f"STEP({self.sql(e, 'this')} BY {self.sql(e, 'by')})",
        WindowInterval: _interval_sql,
        FrameBound: _bound_sql,
        JoinWindowSpec: _spec_sql,
        JoinWindow: _window_sql,
        NamedJoinWindow: _name_sql,
        Watermark: lambda self, e: (
            f"WATERMARK {self.sql(e, 'this')} DELAY OF {self.sql(e, 'expression')}"
        ),
        _StreamMarker: lambda self, e: "STREAM" + (f" {self.sql(e, 'this')}" if e.this else ""),
        # Spark's own transforms for SELECT and tables run first; they end in <key>_sql below.
        OjSelect: Spark.Generator.TRANSFORMS.get(exp.Select, lambda self, e: self.ojselect_sql(e)),
        OjTable: Spark.Generator.TRANSFORMS.get(exp.Table, lambda self, e: self.ojtable_sql(e)),
        OjSubquery: lambda self, e: self.ojsubquery_sql(e),
        OjJoin: _join_sql,
        exp.Stream: lambda self, e: f"STREAM {self.sql(e, 'this')}",
        exp.Version: _version_sql,
    }

    def ojselect_sql(self, expression: OjSelect) -> str:
        """``SELECT [STREAM] ...``: STREAM is printed in DISTINCT's place, before it."""
        if not expression.args.get("stream"):
            return self.select_sql(expression)
        distinct = expression.args.get("distinct")
        expression.set("distinct", _StreamMarker(this=distinct))
        try:
            return self.select_sql(expression)
        finally:
            expression.set("distinct", distinct)

    def ojtable_sql(self, expression: OjTable) -> str:
        """A table with its watermark and join window."""
        return _relation_sql(self, expression, self.table_sql)

    def ojsubquery_sql(self, expression: OjSubquery) -> str:
        """A subquery with its watermark and join window."""
        return _relation_sql(self, expression, self.subquery_sql)


# --------------------------------------------------------------------------------------------
# Dialects
# --------------------------------------------------------------------------------------------


class Overjoin(Spark):
    """Spark SQL plus overjoin's streaming-join syntax (double quotes delimit strings, as in Spark)."""

    class Tokenizer(Spark.Tokenizer):
        pass

    Parser = _OverjoinParser
    Generator = _OverjoinGenerator


class OverjoinDQ(Overjoin):
    """:class:`Overjoin` with ``spark.sql.ansi.doubleQuotedIdentifiers``: ``"x"`` is an identifier."""

    class Tokenizer(Overjoin.Tokenizer):
        QUOTES = ["'"]
        IDENTIFIERS = ["`", '"']
        RAW_STRINGS = [("r'", "'"), ("R'", "'")]


_DIALECTS: dict[bool, Overjoin] = {}


def dialect_for(double_quoted_identifiers: bool = False) -> Overjoin:
    """Return the (cached) dialect instance for the given quoting mode."""
    dialect = _DIALECTS.get(double_quoted_identifiers)
    if dialect is None:
        dialect = (OverjoinDQ if double_quoted_identifiers else Overjoin)()
        _DIALECTS[double_quoted_identifiers] = dialect
    return dialect

