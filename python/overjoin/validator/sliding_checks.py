"""The frames of window functions in a streaming block (docs/semantics.md §12): KDA's sliding
windows, ``SUM(x) OVER (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING)``.

The JVM reads such a frame with the join windows' grammar when it parses the statement
(``SlidingWindowParser``), so it gives the join windows' interval and frame errors there; this is
its twin. As there, a frame with ``UNBOUNDED PRECEDING`` or ``FOLLOWING`` stays Spark's (allowed
over tables; a stream refuses it at analysis, OJ120/OJ121, which this module does not decide), and
so does everything before the frame (``PARTITION BY``, ``ORDER BY``).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError
from sqlglot.tokens import Token, TokenType

from overjoin import dialect as D
from overjoin.validator.common import _syntax_error
from overjoin.validator.window_checks import WindowChecker

if TYPE_CHECKING:
    from overjoin.validator.checks import Context

_NOT_WORDS = frozenset({TokenType.STRING, TokenType.IDENTIFIER, TokenType.NUMBER})


def check_sliding_windows(ctx: Context) -> None:
    """Check the frames of the block's ``WINDOW`` definitions that no join input uses, then of
    the inline specs after ``OVER`` (the JVM's order)."""
    tokens = ctx.tokens
    index = {token.start: i for i, token in enumerate(tokens)}
    joined = {
        item.join_window.this.name.lower()
        for item in ctx.block.inputs
        if item.join_window is not None and item.join_window.args.get("spec") is None
    }
    for name, definition in ctx.block.windows.items():
        at = D.pos(definition, "name")
        i = index.get(at[0]) if at else None
        if name in joined or i is None or i + 2 >= len(tokens) or tokens[i + 2].token_type != TokenType.L_PAREN:
            continue
        close = _closing(tokens, i + 2)
        if close is not None:
            _check_frame(ctx, i + 2, close, definition.this.name)
    windows = [
        node
        for node in ctx.block.select.walk(prune=lambda n: isinstance(n, exp.Select) and n is not ctx.block.select)
        if isinstance(node, exp.Window) and node.meta.get("oj_over_parens")
    ]
    for window in sorted(windows, key=lambda w: w.meta["oj_over_parens"][0]):
        open_at, close_at = window.meta["oj_over_parens"]
        first, last = index.get(open_at), index.get(close_at)
        if first is not None and last is not None:
            _check_frame(ctx, first, last, ctx.sql[tokens[first].start : tokens[last].end + 1])


def _closing(tokens: list[Token], open_index: int) -> int | None:
    depth = 0
    for k in range(open_index, len(tokens)):
        kind = tokens[k].token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return k
    return None


def _word(token: Token, *words: str) -> bool:
    return token.token_type not in _NOT_WORDS and token.text.upper() in words


def _check_frame(ctx: Context, open_index: int, close: int, display: str) -> None:
    """The frame in the parentheses at token indexes ``open_index``, ``close``, if it has one."""
    tokens = ctx.tokens
    frame, depth = None, 0
    for k in range(open_index + 1, close):
        kind = tokens[k].token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and _word(tokens[k], "RANGE", "ROWS"):
            frame = k
            break
    if frame is None:
        return
    words = tokens[frame:close]
    if any(_word(t, "FOLLOWING") for t in words) or any(
        _word(t, "UNBOUNDED") and _word(u, "PRECEDING") for t, u in itertools.pairwise(words)
    ):
        return  # Spark's frame: OJ120/OJ121 on a stream, at analysis
    parser: Any = D.dialect_for().parser(error_level=ErrorLevel.IMMEDIATE)
    try:
        found = parser._parse(lambda p: p._parse_join_window_spec(), words, ctx.sql)
    except ParseError as error:
        message, token, at_end = parser.oj_error or (str(error), tokens[frame], False)
        if at_end:
            token = tokens[close]  # the JVM points at the closing parenthesis
        elif "Unexpected token" in message:
            message = "expected the end of the window specification"
        _syntax_error(ctx.reporter, token, message)
        return
    except (ValueError, TypeError, KeyError, IndexError) as error:
        # sqlglot's builders refuse some garbage with a plain exception: a syntax error all the same.
        _syntax_error(
            ctx.reporter, parser._curr or parser._prev or tokens[frame], f"this text cannot be parsed ({error})"
        )
        return
    spec = found[0]
    if isinstance(spec, D.JoinWindowSpec):
        WindowChecker(ctx, None, spec, display=display).check()
