"""The join-window grammar of docs/syntax.md (``join_window``, ``window_spec``, ``frame``,
``interval``, ``duration``, the ``WINDOW`` clause), as a layer of sqlglot's Spark parser.

It is parsed leniently: ``FOLLOWING``, ``UNBOUNDED``, ``MONTH``, negative sizes and the like are
kept in the tree, with the positions of their tokens, so that the validator can report them with
their own error codes; only text that fits no reading at all is a syntax error here.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.parsers.spark import SparkParser
from sqlglot.tokens import Token, TokenType

from overjoin import intervals
from overjoin.dialect.expressions import (
    Duration,
    FrameBound,
    JoinWindow,
    JoinWindowSpec,
    NamedJoinWindow,
    WindowInterval,
)
from overjoin.dialect.expressions import mark as _mark

#: Units a join-window interval may name (plural spellings are Spark's).
UNIT_WORDS = intervals.unit_words()

_IDENTIFIER_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


class JoinWindowGrammar(SparkParser):
    """Spark's parser plus the productions of join windows; :class:`OverjoinParser` builds on it."""

    #: The message and token of the last error raised (and whether it was at the end of the
    #: statement), so that callers can point at it.
    oj_error: tuple[str, Token, bool] | None = None

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
            # The JVM refuses UNBOUNDED (OJ103) before it reads a side: `RANGE UNBOUNDED)` too.
            side = self._prev.text.upper() if self._match_texts(("PRECEDING", "FOLLOWING")) else "PRECEDING"
            bound = FrameBound(side=side, unbounded=True)
        elif self._match_text_seq("CURRENT", "ROW"):
            bound = FrameBound(side="CURRENT ROW")
        else:
            size = self._parse_window_size()
            if size is None:
                self.raise_error(
                    "Expected a row count PRECEDING or CURRENT ROW"
                    if kind == "ROWS"
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
        run = self._number_run()
        if run is not None and run[1] > token.end:
            # One number token to the JVM's lexer (1.5.5s), several here: judged as one duration.
            self._skip_to(run[1])
            node = self.expression(Duration(this=self.sql[run[0] : run[1] + 1]))
            node.meta.setdefault("oj", {})["value"] = run
            return node
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

    def _number_run(self) -> tuple[int, int] | None:
        """When the current token starts a number as the JVM's lexer reads numbers (digits,
        letters, dots, underscores: ``1.5.5s``, ``10L``), that number's offsets (end inclusive);
        otherwise None."""
        token = self._curr
        if token is None:
            return None
        sql, at = self.sql, token.start
        if not (sql[at : at + 1].isdigit() or (sql[at : at + 1] == "." and sql[at + 1 : at + 2].isdigit())):
            return None
        return at, intervals.number_run_end(sql, at) - 1

    def _skip_to(self, end: int) -> None:
        """Move past every token that starts at or before offset ``end``."""
        tokens = self._tokens
        while self._index < len(tokens) and tokens[self._index].start <= end:
            self._advance()

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
            curr and curr.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and curr.text.upper() in UNIT_WORDS
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
