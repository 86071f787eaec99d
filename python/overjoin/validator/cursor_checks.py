"""Kinesis Data Analytics' functions of a cursor, read as relations (docs/semantics.md §14):
``TABLE(RANDOM_CUT_FOREST(CURSOR(query), ...))`` (and ``RANDOM_CUT_FOREST_WITH_EXPLANATION``),
``TABLE(HOTSPOTS(CURSOR(query), windowSize, scanRadius, minimumNumberOfPointsInAHotspot))``,
``TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(query), 'column', K, windowSize))`` and
``TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'column', windowSize))``. The parameters the
JVM parser refuses, with the same positions and messages (OJ001). Whether the query can be read (a
ROWTIME, the named column, a numeric column, no DECIMAL: OJ124) is decided at analysis, where the
columns are known."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot.tokens import Token, TokenType

from overjoin.validator.common import _syntax_error
from overjoin.validator.diagnostics import Reporter


@dataclass(frozen=True)
class _Param:
    name: str
    low: int = 0
    high: int = 0
    required: bool = True
    column: bool = False  # a column's name in single quotes, not a number
    flag: bool = False  # TRUE or FALSE, not a number
    positive: bool = False  # any number above 0, not only a whole one


#: Each function's parameters after its cursor, in order, with KDA's ranges (the JVM's CursorFunctionParser).
_FOREST = (
    _Param("numberOfTrees", 1, 1000, required=False),
    _Param("subSampleSize", 10, 1000, required=False),
    _Param("timeDecay", 1, 2**31 - 1, required=False),
    _Param("shingleSize", 1, 30, required=False),
)
FUNCTIONS: dict[str, tuple[_Param, ...]] = {
    "RANDOM_CUT_FOREST": _FOREST,
    "RANDOM_CUT_FOREST_WITH_EXPLANATION": (*_FOREST, _Param("withDirectionality", required=False, flag=True)),
    "HOTSPOTS": (
        _Param("windowSize", 100, 1000),
        _Param("scanRadius", positive=True),
        _Param("minimumNumberOfPointsInAHotspot", 2, 1000),
    ),
    "TOP_K_ITEMS_TUMBLING": (_Param("columnName", column=True), _Param("K", 1, 100000), _Param("windowSize", 1, 3600)),
    "COUNT_DISTINCT_ITEMS_TUMBLING": (_Param("columnName", column=True), _Param("windowSize", 1, 3600)),
}


def check_cursor_functions(tokens: list[Token], reporter: Reporter) -> None:
    """Report the first bad parameter of each ``TABLE(f(CURSOR(...), ...))``."""
    for i in range(len(tokens) - 5):
        if _opens_call(tokens, i):
            _check_call(tokens, i, reporter)


def _word(token: Token, *words: str) -> bool:
    return token.text.upper() in words and token.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)


def _opens_call(tokens: list[Token], i: int) -> bool:
    return (
        _word(tokens[i], "TABLE")
        and tokens[i + 1].token_type == TokenType.L_PAREN
        and _word(tokens[i + 2], *FUNCTIONS)
        and tokens[i + 3].token_type == TokenType.L_PAREN
        and _word(tokens[i + 4], "CURSOR")
        and tokens[i + 5].token_type == TokenType.L_PAREN
    )


def _close(tokens: list[Token], i: int) -> int:
    """The index of the parenthesis that closes the one at ``i`` (the last token if none does)."""
    depth = 0
    for k in range(i, len(tokens)):
        if tokens[k].token_type == TokenType.L_PAREN:
            depth += 1
        elif tokens[k].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return k
    return len(tokens) - 1


def _check_call(tokens: list[Token], i: int, reporter: Reporter) -> None:
    name = tokens[i + 2].text.upper()
    params = FUNCTIONS[name]
    table_close = _close(tokens, i + 1)
    call_close = _close(tokens, i + 3)
    if call_close + 1 != table_close:
        _syntax_error(reporter, tokens[call_close + 1], f"expected ')' after {name}(...)")
        return
    cursor_close = _close(tokens, i + 5)
    if cursor_close == i + 6:
        _syntax_error(reporter, tokens[cursor_close], "expected a query in CURSOR(...)")
        return
    k, n = cursor_close + 1, 0
    while k < call_close:
        if tokens[k].token_type != TokenType.COMMA:
            _syntax_error(reporter, tokens[k], f"expected ',' and a parameter of {name}")
            return
        if k + 1 >= call_close:
            _syntax_error(reporter, tokens[k + 1], f"expected a parameter of {name}")
            return
        value = tokens[k + 1]
        if n >= len(params):
            names = ", ".join(p.name for p in params)
            _syntax_error(reporter, value, f"{name} takes at most {len(params)} parameters after its cursor: {names}")
            return
        if not _fits(params[n], value):
            _syntax_error(reporter, value, _wrong(name, params[n]))
            return
        k, n = k + 2, n + 1
    required = sum(p.required for p in params)
    if n < required:
        takes = ", ".join(p.name for p in params[:required])
        _syntax_error(reporter, tokens[call_close], f"expected {params[n].name} of {name} (it takes {takes})")
        return
    if name == "HOTSPOTS" and int(tokens[call_close - 1].text) > int(tokens[cursor_close + 2].text):
        window = tokens[cursor_close + 2].text
        _syntax_error(
            reporter,
            tokens[call_close - 1],
            f"minimumNumberOfPointsInAHotspot of HOTSPOTS is a whole number from 2 to windowSize ({window})",
        )


def _fits(param: _Param, value: Token) -> bool:
    if param.positive:
        try:
            number = float(value.text)
        except ValueError:
            return False
        return value.token_type == TokenType.NUMBER and 0 < number < float("inf")
    if param.flag:
        return value.token_type in (TokenType.TRUE, TokenType.FALSE)
    if param.column:
        return value.token_type == TokenType.STRING and value.text != ""
    text = value.text
    return value.token_type == TokenType.NUMBER and text.isdigit() and param.low <= int(text) <= param.high


def _wrong(function: str, param: _Param) -> str:
    if param.positive:
        return f"{param.name} of {function} is a number above 0"
    if param.flag:
        return f"{param.name} of {function} is TRUE or FALSE"
    if param.column:
        return (
            f"{param.name} of {function} is the name of a column of the cursor's query in single quotes, "
            "such as 'TICKER_SYMBOL'"
        )
    return f"{param.name} of {function} is a whole number from {param.low} to {param.high}"
