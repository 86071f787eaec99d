"""The pure-Python pre-validator: ``validate(sql) -> list[Diagnostic]``, no JVM.

It checks what the JVM extension's parser checks (docs/syntax.md, its error table), plus, when
``schemas`` are given, what needs the inputs' columns (SEMANTICS.md section 1 and 4).

How it works:

1. The whole text is tokenized once with the :mod:`overjoin.dialect` tokenizer, so every
   position is relative to the whole text, and split into statements at ``;``.
2. Each statement is parsed on its own; a statement that does not parse is one ``OJ001``
   diagnostic at the first token that cannot continue it (sqlglot reports the *last* character
   of a token: we keep the token and report its first), and the next statement is validated.
   A statement sqlglot only keeps as a raw ``Command`` is a syntax error too, except the few Spark
   statements sqlglot never models (``SHOW``, ``ADD JAR`` ...), which hold no query.
3. Every query block in the streaming dialect (SEMANTICS.md section 0: ``SELECT STREAM``, ``OVER``
   or ``WITHIN`` on a join input, ``ASOF``, ``FOR SYSTEM_TIME AS OF PROCTIME()``, ``TUMBLE``/``HOP``,
   ``STREAM t``) is checked: windows, joins, named windows and, with schemas, columns and rowtimes.
   Other query blocks are plain Spark SQL and get only the syntax check (and Spark's own rule that
   a window name is defined once).

The block model built here (:func:`block_model`) is also what :mod:`overjoin.explain` describes.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from overjoin import dialect as D
from overjoin.errors import condition, format_message

__all__ = [
    "Block",
    "Diagnostic",
    "Input",
    "JoinStep",
    "Window",
    "block_model",
    "parse_statements",
    "render",
    "validate",
]

Schemas = Mapping[str, Mapping[str, str]]

# ============================================================================================
# Diagnostics
# ============================================================================================


@dataclass(frozen=True)
class Diagnostic:
    """One finding, positioned on the user's text.

    ``line``/``column`` are 1-based and point at the first character of the offending text;
    ``end_line``/``end_column`` at its last character (inclusive). ``code`` and ``condition`` come
    from the shared catalogue (``OJ102``, ``OVERJOIN_WINDOW_FOLLOWING``).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    severity: str
    code: str
    condition: str
    message: str
    hint: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "code": self.code,
            "condition": self.condition,
            "message": self.message,
            "hint": self.hint,
        }

    def render(self, source: str | None = None, path: str = "<sql>") -> str:
        """Compiler-style text: ``path:line:col: error[OJ102]: message``, the line, a caret, the hint."""
        return render(self, source, path)


def render(diagnostic: Diagnostic, source: str | None = None, path: str = "<sql>") -> str:
    """Render ``diagnostic`` the way compilers do, quoting ``source``'s line when given."""
    d = diagnostic
    out = [f"{path}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}"]
    lines = source.splitlines() if source is not None else []
    if 0 < d.line <= len(lines):
        text = lines[d.line - 1].replace("\t", " ")
        last = d.end_column if d.end_line == d.line else len(text)
        width = max(1, min(last, max(len(text), d.column)) - d.column + 1)
        out.append(f"  {text}")
        out.append(f"  {' ' * (d.column - 1)}^{'~' * (width - 1)}")
    if d.hint:
        out.append(f"  hint: {d.hint}")
    return "\n".join(out)


class _Text:
    """The whole text: turns character offsets into 1-based (line, column)."""

    def __init__(self, sql: str) -> None:
        self.sql = sql
        self._starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", sql)]

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.sql)))
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


class _Reporter:
    """Collects diagnostics for one text, filling catalogue templates."""

    def __init__(self, text: _Text) -> None:
        self.text = text
        self.found: list[tuple[int, Diagnostic]] = []
        self._seen: set[tuple[int, str]] = set()

    def add(self, cond: str, span: tuple[int, int] | None, severity: str = "error", **params: Any) -> None:
        start, end = span if span is not None else (0, 0)
        if (start, cond) in self._seen:
            return
        self._seen.add((start, cond))
        entry = condition(cond)
        line, column = self.text.position(start)
        end_line, end_column = self.text.position(max(start, end))
        diag = Diagnostic(
            line, column, end_line, end_column, severity, entry.code, cond,
            format_message(entry.message, params), format_message(entry.hint, params),
        )  # fmt: skip
        self.found.append((start, diag))

    def sorted(self) -> list[Diagnostic]:
        return [d for _, d in sorted(self.found, key=lambda item: item[0])]


# ============================================================================================
# Statements
# ============================================================================================

# Spark statements that sqlglot keeps as raw text (or misreads as an expression) and that hold no
# query: accepted as they are.
_SPARK_COMMAND_WORDS = frozenset(
    {"SHOW", "ADD", "LIST", "CLEAR", "RESET", "MSCK", "REFRESH", "LOAD", "REPAIR", "EXPLAIN"}
)
_QUERY_STARTS = frozenset(
    {TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN, TokenType.FROM, TokenType.VALUES,
     TokenType.TABLE}
)  # fmt: skip


@dataclass
class Statement:
    """One parsed statement: its tree (``None`` when it did not parse) and its tokens."""

    tree: exp.Expr | None
    tokens: list[Token]


def validate(
    sql: str,
    schemas: Schemas | None = None,
    *,
    double_quoted_identifiers: bool = False,
) -> list[Diagnostic]:
    """Validate overjoin SQL without a JVM and return its diagnostics, sorted by position.

    Args:
        sql: one statement or several separated by ``;``.
        schemas: optional table name -> {column name: Spark type string}; enables the column
            checks (``USING``, ``NATURAL``, rowtime, ambiguity). Names match case-insensitively,
            a qualified name (``db.t``) first in full, then by its last part.
        double_quoted_identifiers: read ``"x"`` as an identifier (Spark's
            ``spark.sql.ansi.doubleQuotedIdentifiers``), as s-Server queries are written.

    Returns:
        An empty list when the text is valid.
    """
    text = _Text(sql)
    reporter = _Reporter(text)
    for statement in parse_statements(sql, reporter, double_quoted_identifiers):
        if statement.tree is not None:
            _check_tree(statement, reporter, _Schemas(schemas) if schemas else None)
    return reporter.sorted()


def parse_statements(
    sql: str, reporter: Any = None, double_quoted_identifiers: bool = False
) -> list[Statement]:
    """Tokenize and parse ``sql`` statement by statement; syntax errors go to ``reporter``."""
    reporter = reporter if reporter is not None else _Reporter(_Text(sql))
    dialect = D.dialect_for(double_quoted_identifiers)
    try:
        tokens = dialect.tokenize(sql)
    except TokenError as error:
        offset = _unterminated_offset(sql)
        reporter.add("OVERJOIN_SYNTAX_ERROR", (offset, offset), token=_quote(sql[offset:offset + 1] or "end of input"),
                     detail=str(error).split("\n")[0].rstrip("."))  # fmt: skip
        return []
    parser = dialect.parser(error_level=ErrorLevel.IMMEDIATE)
    return [_parse_one(_explained(chunk, sql, dialect), sql, parser, reporter) for chunk in _split(tokens)]


def _explained(tokens: list[Token], sql: str, dialect: Any) -> list[Token]:
    """The tokens of the statement after ``EXPLAIN [mode]``, or ``tokens`` for other statements.

    The tokenizer swallows the rest of a statement after EXPLAIN as one string; the statement is
    tokenized again with the text before it blanked, so that positions stay those of the whole text.
    """
    if tokens[0].text.upper() != "EXPLAIN" or len(tokens) < 2:
        return tokens
    start = tokens[0].end + 1
    rest = sql[start : max(t.end for t in tokens) + 1]
    mode = re.match(r"\s*(EXTENDED|CODEGEN|COST|FORMATTED|LOGICAL)\b", rest, re.IGNORECASE)
    if mode:
        start += mode.end()
        rest = rest[mode.end():]
    blank = re.sub(r"[^\r\n]", " ", sql[:start])
    try:
        inner = dialect.tokenize(blank + rest)
    except TokenError:
        return tokens
    return inner or tokens


def _split(tokens: list[Token]) -> Iterator[list[Token]]:
    chunk: list[Token] = []
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if chunk:
                yield chunk
            chunk = []
        else:
            chunk.append(token)
    if chunk:
        yield chunk


def _parse_one(tokens: list[Token], sql: str, parser: Any, reporter: _Reporter) -> Statement:
    first = tokens[0]
    word = first.text.upper().split(" ")[0]
    if word in _SPARK_COMMAND_WORDS and first.token_type not in (TokenType.STRING, TokenType.IDENTIFIER):
        return Statement(None, tokens)
    if first.token_type not in _QUERY_STARTS and first.token_type not in parser.STATEMENT_PARSERS:
        _syntax_error(reporter, first, "a statement cannot start here")
        return Statement(None, tokens)
    try:
        trees = parser.parse(tokens, sql)
    except ParseError as error:
        message, token, at_end = parser.oj_error or (str(error), first, False)
        _syntax_error(reporter, token, message, at_end)
        return Statement(None, tokens)
    tree = trees[0] if trees else None
    if isinstance(tree, exp.Command):
        failed = D.pos(tree, "failed_at")
        token = _token_at(tokens, failed[0]) if failed else first
        _syntax_error(reporter, token or first, "this statement is not supported here")
        return Statement(None, tokens)
    return Statement(tree, tokens)


_REQUIRED = re.compile(r"Required keyword: '\w+' missing for <class '[\w.]+'>")
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.\w+, text: ([^,]*), .*?>")


def _syntax_error(reporter: _Reporter, token: Token, detail: str, at_end: bool = False) -> None:
    """Report OJ001 at ``token`` (or just after it when the statement ended too early)."""
    if at_end:
        at, span = "end of input", (token.end + 1, token.end + 1)
    else:
        at, span = _quote(token.text), (token.start, token.end)
    detail = _TOKEN_REPR.sub(lambda m: _quote(m.group(1)), detail.split("\n")[0]).rstrip(".")
    detail = detail.replace("'SENTINEL'", "end of input")
    detail = _REQUIRED.sub("expected an expression", detail)
    detail = detail.replace("Invalid expression / Unexpected token", "unexpected token")
    detail = re.sub(r"^Expecting (\S+)$", r"expected '\1'", detail)
    reporter.add("OVERJOIN_SYNTAX_ERROR", span, token=at, detail=detail[:1].lower() + detail[1:])


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


# ============================================================================================
# The block model
# ============================================================================================

_US = {"SECOND": 10**6, "MINUTE": 60 * 10**6, "HOUR": 3600 * 10**6, "DAY": 86400 * 10**6,
       "WEEK": 7 * 86400 * 10**6, "MILLISECOND": 1000, "MICROSECOND": 1}  # fmt: skip
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)$", re.IGNORECASE)
_DURATION_US = {"ms": 1000, "s": 10**6, "m": 60 * 10**6, "h": 3600 * 10**6, "d": 86400 * 10**6}
_FIELDS = {  # x TO y qualifiers: pattern of the value and the unit of each field
    ("DAY", "HOUR"): (r"(\d+) +(\d+)", ("DAY", "HOUR")),
    ("DAY", "MINUTE"): (r"(\d+) +(\d+):(\d+)", ("DAY", "HOUR", "MINUTE")),
    ("DAY", "SECOND"): (r"(\d+) +(\d+):(\d+):(\d+(?:\.\d+)?)", ("DAY", "HOUR", "MINUTE", "SECOND")),
    ("HOUR", "MINUTE"): (r"(\d+):(\d+)", ("HOUR", "MINUTE")),
    ("HOUR", "SECOND"): (r"(\d+):(\d+):(\d+(?:\.\d+)?)", ("HOUR", "MINUTE", "SECOND")),
    ("MINUTE", "SECOND"): (r"(\d+):(\d+(?:\.\d+)?)", ("MINUTE", "SECOND")),
}
_FIELD_FORMS = {("DAY", "HOUR"): "d hh", ("DAY", "MINUTE"): "d hh:mm", ("DAY", "SECOND"): "d hh:mm:ss[.f]",
                ("HOUR", "MINUTE"): "hh:mm", ("HOUR", "SECOND"): "hh:mm:ss[.f]",
                ("MINUTE", "SECOND"): "mm:ss[.f]"}  # fmt: skip
_PAIR = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)")
_VARIABLE_UNITS = frozenset({"MONTH", "YEAR"})


def _base_unit(word: str) -> str:
    """``SECONDS`` -> ``SECOND``: Spark also accepts the plural unit words."""
    word = word.upper()
    if word.endswith("S") and (word[:-1] in _US or word[:-1] in _VARIABLE_UNITS):
        return word[:-1]
    return word


@dataclass
class Window:
    """A join window as the semantics see it (SEMANTICS.md section 2).

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


@dataclass
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


def block_model(select: exp.Select) -> Block:
    """Describe ``select``'s FROM clause as inputs and a left-deep chain of joins."""
    from_ = select.args.get("from_")
    inputs: list[Input] = []
    steps: list[JoinStep] = []
    if from_ is not None and from_.this is not None:
        inputs.append(_input(from_.this))
    for join in select.args.get("joins") or []:
        right = _input(join.this)
        inputs.append(right)
        steps.append(
            JoinStep(
                join, right, (join.side or "").upper(), (join.kind or "").upper(),
                (join.args.get("method") or "").upper(), bool(join.kind == "CROSS" and "pivots" not in join.args),
                join.args.get("within"),
            )  # fmt: skip
        )
    windows: dict[str, exp.Expr] = {}
    for definition in select.args.get("windows") or []:
        windows.setdefault(definition.this.name.lower(), definition)
    block = Block(select, inputs, steps, windows)
    block.streaming = _is_streaming(block)
    return block


def _input(relation: exp.Expr) -> Input:
    node = relation.this if isinstance(relation, exp.Stream) else relation
    alias = node.alias or None
    table_name = None
    if isinstance(node, exp.Table) and isinstance(node.this, (exp.Func, exp.Window)):
        kind = "tvf"
        func = node.this.this if isinstance(node.this, exp.Window) else node.this
        source = f"{(func.name if isinstance(func, exp.Anonymous) else func.sql_name()).upper()}(...)"
    elif isinstance(node, exp.Table):
        table_name = ".".join(part.name for part in node.parts)
        kind = "lookup" if _is_proctime_lookup(node.args.get("version")) else "table"
        source = table_name
    elif isinstance(node, exp.Subquery):
        kind, source = "subquery", "subquery"
    else:
        kind, source = "other", node.sql()
    return Input(
        relation, node, alias, source, table_name, kind, isinstance(relation, exp.Stream),
        node.args.get("join_window"), node.args.get("watermark"),
    )  # fmt: skip


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
    for item in block.inputs:
        if item.streamed or item.join_window is not None or item.kind == "lookup":
            return True
        if item.kind == "tvf" and _tvf_name(item) in ("TUMBLE", "HOP"):
            return True
    return any(step.within is not None or step.method == "ASOF" for step in block.steps)


def _tvf_name(item: Input) -> str:
    func = item.node.this
    if isinstance(func, exp.Window):
        func = func.this
    return (func.name if isinstance(func, exp.Anonymous) else func.sql_name()).upper()


# ============================================================================================
# Checks on a statement
# ============================================================================================


def _check_tree(statement: Statement, reporter: _Reporter, schemas: _Schemas | None) -> None:
    tokens = statement.tokens
    for select in statement.tree.find_all(exp.Select):
        block = block_model(select)
        _check_duplicate_windows(block, reporter)
        if not block.streaming:
            continue
        ctx = _Context(block, reporter, tokens, schemas)
        ctx.run()


class _Context:
    """The checks of one streaming query block."""

    def __init__(self, block: Block, reporter: _Reporter, tokens: list[Token], schemas: _Schemas | None):
        self.block = block
        self.reporter = reporter
        self.tokens = tokens
        self.schemas = schemas
        self.sql = reporter.text.sql

    def run(self) -> None:
        self._resolve_windows()
        self._check_joins()
        if self.schemas is not None:
            self._check_schemas()

    # ---- windows ---------------------------------------------------------------------------

    def _resolve_windows(self) -> None:
        for item in self.block.inputs:
            if item.join_window is not None:
                spec = self._spec_of(item)
                if spec is not None:
                    item.spec = spec
                    item.window = _WindowChecker(self, item, spec).check()
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
        if window.args.get("spec") is not None:
            return window.args["spec"]
        name = window.this
        definition = self.block.windows.get(name.name.lower())
        if definition is None:
            self.reporter.add("OVERJOIN_WINDOW_UNKNOWN_NAME", _span(name), name=name.sql(dialect=D.dialect_for()),
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
        span = D.pos(step.join, "within")
        if step.method == "ASOF":
            self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", span, input=step.right.display,
                              detail="an ASOF join picks the closest row and takes no WITHIN")  # fmt: skip
            return
        left = self._left_inputs(step)
        direct = [step.right] + (left if len(left) == 1 else [])
        if any(item.join_window is not None for item in direct):
            self.reporter.add("OVERJOIN_WITHIN_WITH_OVER", span, input=step.right.display)
            return
        checker = _WindowChecker(self, step.right, None)
        size = checker.range_size(step.within)
        if size is None:
            for item in [step.right, *left]:
                item.window_ok = item.window_ok and item.join_window is not None
            return
        text = f"RANGE {_sql(step.within)} PRECEDING"
        for item in [step.right, *left]:
            if item.join_window is None and item.window is None:
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
            self._check_outer_bound(step)
        for item in self.block.inputs:
            if item.kind == "tvf" and (item.join_window is not None or isinstance(item.node.this, exp.Window)):
                self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", self._over_span(item), input=item.display,
                                  detail=f"{_tvf_name(item)} already assigns each row to a window")  # fmt: skip

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
                                  detail="an ASOF join picks the closest row and takes no join window")  # fmt: skip
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
                              detail="FOR SYSTEM_TIME AS OF PROCTIME() reads a table, which has no window")  # fmt: skip

    def _check_outer_bound(self, step: JoinStep) -> None:
        if step.side not in ("LEFT", "RIGHT", "FULL") or step.method == "ASOF":
            return
        left = self._left_inputs(step)
        right = [step.right]
        sides = {"LEFT": [(left, right)], "RIGHT": [(right, left)], "FULL": [(left, right), (right, left)]}
        for preserved, other in sides[step.side]:
            unbounded = [i for i in preserved if _never_closes(i)]
            streams = [i for i in preserved if i.known_stream]
            if streams and len(unbounded) == len(streams) and any(i.known_stream for i in other):
                culprit = unbounded[0]
                self.reporter.add(
                    "OVERJOIN_OUTER_JOIN_UNBOUNDED", self._join_keyword_span(step),
                    joinType=step.label, left=_names(left), right=step.right.display,
                    detail=(f"the ROWS window of {culprit.display} is counted per partition, so the "
                            "last rows of a partition that gets no more rows never leave their "
                            "window and the watermark can never pass the end of their life interval"),
                )  # fmt: skip

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
        elif item.columns is not None and "rowtime" in item.columns:
            item.rowtime, item.rowtime_from = "ROWTIME", "column"
            span = D.pos(item.relation, "relation")
        else:
            if item.columns is not None and item.known_stream and item.kind in ("table", "subquery"):
                self.reporter.add("OVERJOIN_NO_ROWTIME", D.pos(item.relation, "relation"),
                                  input=item.display, source=item.source)
            return
        kind = (item.columns or {}).get(item.rowtime.lower())
        if kind is not None and item.known_stream and not _is_timestamp(kind):
            self.reporter.add("OVERJOIN_ROWTIME_NOT_TIMESTAMP", span, column=item.rowtime,
                              input=item.display, type=kind)  # fmt: skip

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


class _WindowChecker:
    """Checks one join window spec and computes its :class:`Window`, or ``None`` when invalid."""

    def __init__(self, ctx: _Context, item: Input, spec: D.JoinWindowSpec | None) -> None:
        self.ctx = ctx
        self.item = item
        self.spec = spec
        self.ok = True

    def error(self, name: str, span: tuple[int, int] | None, **params: Any) -> None:
        self.ok = False
        self.ctx.reporter.add(name, span, input=self.item.display, **params)

    def check(self) -> Window | None:
        spec = self.spec
        assert spec is not None
        kind = spec.args.get("kind")
        if not kind:
            if spec.args.get("partition_by"):
                self.error("OVERJOIN_WINDOW_PARTITION_BY", D.pos(spec, "partition"),
                           detail="no RANGE or ROWS frame follows it")  # fmt: skip
            else:
                close = D.pos(spec, "close")
                token = _token_at(self.ctx.tokens, close[0]) if close else self.ctx.tokens[-1]
                _syntax_error(self.ctx.reporter, token, "expected RANGE or ROWS: a join window needs a frame")
                self.ok = False
            return None
        self._check_order()
        start, end = spec.args.get("start"), spec.args.get("end")
        a = self._bound(start, kind)
        b = self._bound(end, kind) if end is not None else 0
        if not self.ok or a is None or b is None:
            return None
        if a < b:
            self.error("OVERJOIN_WINDOW_BOUNDS_ORDER", D.pos(spec, "between"),
                       start=_bound_text(start), end=_bound_text(end))  # fmt: skip
            return None
        if kind == "ROWS" and b > 0:
            self.ctx.reporter.add("OVERJOIN_UNSUPPORTED_SYNTAX", D.pos(end, "bound"),
                                  feature="A ROWS window that ends before the current row",
                                  alternative="write ROWS BETWEEN n PRECEDING AND CURRENT ROW.")  # fmt: skip
            return None
        order = _order_column(spec)
        return Window(kind, a, b, bool(spec.args.get("partition_by")), order.name if order else None,
                      "over", _spec_text(spec))  # fmt: skip

    def _check_order(self) -> None:
        order = self.spec.args.get("order")
        if order and _order_column(self.spec) is None:
            span = D.pos(self.spec, "order")
            end = D.pos(self.spec, "order_end")
            text = self.ctx.sql[span[0]: end[1] + 1] if span and end else _sql(order[0])
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
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(size, "minus"), size=_sql(size))
            return None
        if isinstance(size, exp.Literal) and re.fullmatch(r"\d+", size.name):
            return int(size.name)
        first = _first_span(size)
        token = _token_at(self.ctx.tokens, first[0]) if first else self.ctx.tokens[0]
        _syntax_error(self.ctx.reporter, token, "ROWS counts rows: expected a whole number such as ROWS 5 PRECEDING")
        self.ok = False
        return None

    def range_size(self, size: exp.Expr) -> int | None:
        """Microseconds of a RANGE size (interval or duration), reporting what is wrong with it."""
        if isinstance(size, exp.Neg):
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(size, "minus"), size=_sql(size))
            return None
        if isinstance(size, D.WindowInterval):
            return self._interval(size)
        text = size.name if isinstance(size, (D.Duration, exp.Literal)) else _sql(size)
        match = _DURATION.match(text)
        if match is None:
            self.error("OVERJOIN_BAD_DURATION", D.pos(size, "value"), literal=text)
            return None
        return round(float(match.group(1)) * _DURATION_US[match.group(2).lower()])

    def _interval(self, node: D.WindowInterval) -> int | None:
        units = [node.args.get("unit"), node.args.get("to")]
        for key in ("unit", "to"):
            unit = node.args.get(key)
            if unit and _base_unit(unit) in _VARIABLE_UNITS:
                self.error("OVERJOIN_WINDOW_VARIABLE_UNIT", D.pos(node, key), unit=_base_unit(unit))
                return None
        for key, unit_key in (("precision", "unit"), ("to_precision", "to")):
            precision = node.args.get(key)
            if precision is not None and not (precision.isdigit() and 0 <= int(precision) <= 9):
                self.error("OVERJOIN_WINDOW_BAD_PRECISION", D.pos(node, key), precision=precision,
                           unit=node.args.get(unit_key))  # fmt: skip
                return None
        if node.args.get("negative"):
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(node, "interval"), size=_sql(node))
            return None
        value = node.this.name.strip()
        if value.startswith("-"):
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(node, "interval"), size=_sql(node))
            return None
        value = value.lstrip("+").strip()
        unit, to = (_base_unit(u) if u else None for u in units)
        if unit is None:
            return self._interval_string(node, value)
        return self._interval_value(node, value, unit, to)

    def _interval_value(self, node: D.WindowInterval, value: str, unit: str, to: str | None) -> int | None:
        literal = _sql(node.this)
        if to is None:
            pattern = r"\d+(?:\.\d+)?" if unit == "SECOND" else r"\d+"
            if re.fullmatch(pattern, value):
                return round(float(value) * _US[unit]) if "." in value else int(value) * _US[unit]
            form = "a number of seconds such as '1.5'" if unit == "SECOND" else f"a whole number of {unit.lower()}s"
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal, unit=unit,
                       detail=f"expected {form}")  # fmt: skip
            return None
        qualifier = (unit, to)
        if qualifier not in _FIELDS:
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal,
                       unit=f"{unit} TO {to}", detail=f"{unit} TO {to} is not an interval qualifier")  # fmt: skip
            return None
        pattern, fields = _FIELDS[qualifier]
        match = re.fullmatch(pattern, value)
        if match is None:
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal,
                       unit=f"{unit} TO {to}", detail=f"expected '{_FIELD_FORMS[qualifier]}'")  # fmt: skip
            return None
        values = [float(v) for v in match.groups()]
        # As in SQL and Spark, only the leading field is unbounded: 'mm:ss' needs ss < 60.
        limits = {"HOUR": 24, "MINUTE": 60, "SECOND": 60}
        if any(v >= limits[f] for v, f in list(zip(values, fields))[1:]):
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal,
                       unit=f"{unit} TO {to}",
                       detail="hours must be below 24 and minutes and seconds below 60 after the first field")  # fmt: skip
            return None
        return sum(round(float(v) * _US[f]) for v, f in zip(match.groups(), fields))

    def _interval_string(self, node: D.WindowInterval, value: str) -> int | None:
        literal = _sql(node.this)
        if not node.this.is_string:
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal, unit="interval",
                       detail="a number needs a unit, for example INTERVAL 5 SECONDS")  # fmt: skip
            return None
        total, consumed = 0, 0
        for match in _PAIR.finditer(value):
            if value[consumed: match.start()].strip():
                break
            number, unit = match.group(1), _base_unit(match.group(2))
            if unit in _VARIABLE_UNITS:
                self.error("OVERJOIN_WINDOW_VARIABLE_UNIT", D.pos(node, "literal"), unit=unit)
                return None
            if unit not in _US:
                break
            if number.startswith("-"):
                self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(node, "interval"), size=_sql(node))
                return None
            total += round(float(number) * _US[unit])
            consumed = match.end()
        if consumed == 0 or value[consumed:].strip():
            self.error("OVERJOIN_WINDOW_BAD_INTERVAL", D.pos(node, "literal"), literal=literal, unit="interval",
                       detail="expected number-and-unit pairs such as '5 seconds' or '1 hour 30 minutes'")  # fmt: skip
            return None
        return total


# ============================================================================================
# Helpers
# ============================================================================================


def _check_duplicate_windows(block: Block, reporter: _Reporter) -> None:
    seen: set[str] = set()
    for definition in block.select.args.get("windows") or []:
        name = definition.this.name.lower()
        if name in seen:
            reporter.add("OVERJOIN_DUPLICATE_WINDOW_NAME", _span(definition.this) or D.pos(definition, "name"),
                         name=definition.this.name)  # fmt: skip
        seen.add(name)


def _never_closes(item: Input) -> bool:
    window = item.window
    return bool(window is not None and window.kind == "ROWS" and window.partitioned)


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


class _Schemas:
    """Case-insensitive access to the ``schemas`` argument."""

    def __init__(self, schemas: Schemas) -> None:
        self.tables = {name.lower(): {c.lower(): str(t) for c, t in cols.items()} for name, cols in schemas.items()}
        self.short = {name.split(".")[-1]: cols for name, cols in self.tables.items()}

    def lookup(self, name: str | None) -> dict[str, str] | None:
        if not name:
            return None
        key = name.lower()
        return self.tables.get(key) or self.short.get(key.split(".")[-1])

    def columns_of(self, item: Input) -> dict[str, str] | None:
        if item.kind in ("table", "lookup"):
            return self.lookup(item.table_name)
        if item.kind == "tvf":
            args = item.node.this.expressions
            base = self.lookup(args[0].name) if args and isinstance(args[0], exp.Column) else None
            if base is None:
                return None
            return {**base, "window_start": "timestamp", "window_end": "timestamp"}
        if item.kind == "subquery":
            return self._subquery_columns(item.node)
        return None

    def _subquery_columns(self, node: exp.Subquery) -> dict[str, str] | None:
        inner = node.this
        if not isinstance(inner, exp.Select) or inner.args.get("joins"):
            return None
        source = inner.args.get("from_")
        base = self.lookup(".".join(p.name for p in source.this.parts)) if source and isinstance(
            source.this, exp.Table) else None  # fmt: skip
        columns: dict[str, str] = {}
        for projection in inner.expressions:
            if isinstance(projection, exp.Star):
                if base is None:
                    return None
                columns.update(base)
                continue
            name = projection.alias_or_name.lower()
            if not name:
                return None
            columns[name] = _projection_type(projection, base)
        return columns


def _projection_type(projection: exp.Expr, base: dict[str, str] | None) -> str:
    value = projection.this if isinstance(projection, exp.Alias) else projection
    if isinstance(value, exp.Cast):
        return value.to.sql(dialect="spark").lower()
    if isinstance(value, exp.Column) and base is not None:
        return base.get(value.name.lower(), "unknown")
    return "unknown"
