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
import contextlib
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from overjoin import dialect as D
from overjoin import intervals
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
    params: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "params": dict(self.params),
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
            {k: str(v) for k, v in params.items()},
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
    """One parsed statement: its tree (``None`` when it did not parse), its tokens, and its
    syntax error as (token, detail, at end of input) when it has one."""

    tree: exp.Expr | None
    tokens: list[Token]
    error: tuple[Token, str, bool] | None = None


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
    with _deep_recursion():
        try:
            for statement in parse_statements(sql, reporter, double_quoted_identifiers):
                if statement.tree is not None:
                    _check_tree(statement, reporter, _Schemas(schemas) if schemas else None)
        except RecursionError:
            reporter.add("OVERJOIN_STATEMENT_TOO_COMPLEX", (0, 0), depth=_depth(sql))
        except Exception as error:  # noqa: BLE001 - the validator reports, it never raises
            reporter.add("OVERJOIN_INTERNAL_ERROR", (0, 0), detail=f"the validator failed: {type(error).__name__}: {error}")
    return reporter.sorted()


@contextlib.contextmanager
def _deep_recursion(limit: int = 20000) -> Iterator[None]:
    """sqlglot's parser recurses a dozen frames per level of parentheses: allow it deep nesting
    (Python 3.11 runs Python-to-Python calls off the C stack), then put the limit back."""
    previous = sys.getrecursionlimit()
    if previous < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        if previous < limit:
            sys.setrecursionlimit(previous)


def _depth(sql: str) -> int:
    depth = deepest = 0
    for ch in sql:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    return deepest


def parse_statements(
    sql: str, reporter: Any = None, double_quoted_identifiers: bool = False
) -> list[Statement]:
    """Tokenize and parse ``sql`` statement by statement; syntax errors go to ``reporter``.

    A statement in the streaming dialect reads ``"x"`` as an identifier, as s-Server does
    (docs/semantics.md §0); every other statement keeps Spark's rule, where ``"x"`` is a string
    unless ``double_quoted_identifiers`` (Spark's ``spark.sql.ansi.doubleQuotedIdentifiers``).
    """
    reporter = reporter if reporter is not None else _Reporter(_Text(sql))
    plain = D.dialect_for(double_quoted_identifiers)
    try:
        tokens = plain.tokenize(sql)
    except TokenError as error:
        offset = _unterminated_offset(sql)
        reporter.add("OVERJOIN_SYNTAX_ERROR", (offset, offset), token=_quote(sql[offset:offset + 1] or "end of input"),
                     detail=str(error).split("\n")[0].rstrip("."))  # fmt: skip
        return []
    chunks = list(_split(tokens))
    quoted = D.dialect_for(True)
    statements = []
    for chunk, quoted_chunk in zip(chunks, _split(quoted.tokenize(sql))):
        if _is_stream_statement(quoted_chunk):
            # Streams and pumps (docs/semantics.md §10): "x" is an identifier here too (§0).
            query = _stream_statement(quoted_chunk, reporter)
            if query is not None:
                statements.append(_report(_parse_one(query, sql, quoted), reporter))
            continue
        if double_quoted_identifiers:
            statements.append(_report(_parse_one(_explained(chunk, sql, plain), sql, plain), reporter))
            continue
        streaming = _parse_one(_explained(quoted_chunk, sql, quoted), sql, quoted)
        if streaming.tree is not None and _has_streaming_block(streaming.tree):
            statements.append(streaming)
            continue
        spark = _parse_one(_explained(chunk, sql, plain), sql, plain)
        if spark.tree is None and streaming.tree is None and _error_offset(streaming) > _error_offset(spark):
            spark = streaming  # both fail: the s-Server reading got further, so report its error
        statements.append(_report(spark, reporter))
    return statements


def _words(tokens: list[Token], count: int) -> list[str]:
    return [t.text.upper() if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else "" for t in tokens[:count]]


def _is_stream_statement(tokens: list[Token]) -> bool:
    """The statements of streams and pumps, recognized as the JVM's StreamStatementParser does."""
    w = _words(tokens, 4) + ["", "", "", ""]
    if w[0] == "CREATE":
        kind = w[3] if w[1] == "OR" and w[2] == "REPLACE" else w[1]
        return kind in ("STREAM", "PUMP")
    if w[0] == "ALTER":
        return w[1] == "PUMP"
    if w[0] == "DROP":
        return w[1] in ("PUMP", "STREAM")
    if w[0] == "SHOW":
        return w[1] in ("PUMPS", "STREAMS") and len(tokens) == 2
    if w[0] in ("DESCRIBE", "DESC"):
        return w[1] == "PUMP" and len(tokens) > 2
    return False


def _stream_statement(tokens: list[Token], reporter: _Reporter) -> list[Token] | None:
    """Checks a stream or pump statement's own syntax; returns a pump's query (its tokens, which
    keep their offsets in the text), to be checked as any other statement, or None."""
    pos = 0

    def fail(detail: str) -> None:
        if pos < len(tokens):
            _syntax_error(reporter, tokens[pos], detail)
        else:
            _syntax_error(reporter, tokens[-1], detail, at_end=True)

    def is_name(i: int) -> bool:
        return i < len(tokens) and tokens[i].token_type not in (TokenType.STRING, TokenType.NUMBER) and (
            tokens[i].text[:1].isalpha() or tokens[i].text[:1] == "_" or tokens[i].token_type == TokenType.IDENTIFIER)

    def name(expected: str) -> bool:
        nonlocal pos
        if not is_name(pos):
            fail(f"expected {expected}")
            return False
        pos += 1
        if pos + 1 < len(tokens) and tokens[pos].token_type == TokenType.DOT and is_name(pos + 1):
            pos += 2
        return True

    w = _words(tokens, len(tokens))
    if w[0] == "CREATE":
        pos = 4 if w[1] == "OR" and w[2] == "REPLACE" else 2
        kind = w[pos - 1]
        if not name("a pump name" if kind == "PUMP" else "a stream name"):
            return None
        if kind == "STREAM":
            if pos >= len(tokens) or tokens[pos].token_type != TokenType.L_PAREN:
                fail("expected ( and the stream's columns")
            return None
        if pos < len(w) and w[pos] in ("STARTED", "STOPPED"):
            pos += 1
        for word in ("AS", "INSERT", "INTO"):
            if pos >= len(w) or w[pos] != word:
                fail(f"expected {word}")
                return None
            pos += 1
        if not name("the target stream name"):
            return None
        if pos + 1 < len(tokens) and tokens[pos].token_type == TokenType.L_PAREN and w[pos + 1] not in ("SELECT", "WITH"):
            depth = 0
            while pos < len(tokens):
                depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[pos].token_type, 0)
                pos += 1
                if depth == 0:
                    break
        if pos >= len(tokens):
            fail("expected the pump's query (SELECT STREAM ...)")
            return None
        return tokens[pos:]
    if w[0] == "ALTER":
        pos = 2
        if name("a pump name"):
            if pos >= len(w) or w[pos] not in ("START", "STOP"):
                fail("expected START or STOP")
            elif pos + 1 < len(tokens):
                pos += 1
                fail("expected the end of the statement")
        return None
    if w[0] == "DROP":
        pos = 4 if w[2:4] == ["IF", "EXISTS"] else 2
        if name("a pump name" if w[1] == "PUMP" else "a stream name") and pos < len(tokens):
            fail("expected the end of the statement")
        return None
    if w[0] in ("DESCRIBE", "DESC"):
        pos = 2
        if name("a pump name") and pos < len(tokens):
            fail("expected the end of the statement")
    return None


def _has_streaming_block(tree: exp.Expr) -> bool:
    return any(block_model(select).streaming for select in tree.find_all(exp.Select))


def _report(statement: Statement, reporter: _Reporter) -> Statement:
    """Report the statement's syntax error, if any; a DESCRIPTION outside a streaming statement is one."""
    if statement.error is not None:
        _syntax_error(reporter, *statement.error)
    elif statement.tree is not None and not _has_streaming_block(statement.tree):
        for prop in statement.tree.find_all(exp.SchemaCommentProperty):
            span = D.pos(prop, "description")
            token = _token_at(statement.tokens, span[0]) if span else None
            if token is not None:
                _syntax_error(reporter, token, "DESCRIPTION (s-Server's COMMENT) is read in streaming statements only")
                return Statement(None, statement.tokens)
    return statement


def _error_offset(statement: Statement) -> int:
    return statement.error[0].start if statement.error is not None else -1


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


def _parse_one(tokens: list[Token], sql: str, dialect: Any) -> Statement:
    """Parse one statement; a syntax error is kept on the result, not reported."""
    first = tokens[0]
    parser = dialect.parser(error_level=ErrorLevel.IMMEDIATE)
    word = first.text.upper().split(" ")[0]
    if word in _SPARK_COMMAND_WORDS and first.token_type not in (TokenType.STRING, TokenType.IDENTIFIER):
        return Statement(None, tokens)
    if first.token_type not in _QUERY_STARTS and first.token_type not in parser.STATEMENT_PARSERS:
        return Statement(None, tokens, (first, "a statement cannot start here", False))
    try:
        trees = parser.parse(tokens, sql)
    except ParseError as error:
        message, token, at_end = parser.oj_error or (str(error), first, False)
        return Statement(None, tokens, (token, message, at_end))
    except (ValueError, TypeError, KeyError, IndexError) as error:
        # sqlglot's builders refuse some garbage with a plain exception: a syntax error all the same.
        token = parser._curr or parser._prev or first
        return Statement(None, tokens, (token, f"this text cannot be parsed ({error})", False))
    tree = trees[0] if trees else None
    if isinstance(tree, exp.Command):
        failed = D.pos(tree, "failed_at")
        token = _token_at(tokens, failed[0]) if failed else first
        return Statement(None, tokens, (token or first, "this statement is not supported here", False))
    return Statement(tree, tokens)


_REQUIRED = re.compile(r"Required keyword: '\w+' missing for <class '[\w.]+'>")
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.\w+, text: ([^,]*), .*?>")


def _syntax_error(reporter: _Reporter, token: Token, detail: str, at_end: bool = False) -> None:
    """Report OJ001 at ``token`` (or just after it when the statement ended too early)."""
    if at_end:
        at, span = "end of input", (token.end + 1, token.end + 1)
    else:
        at, span = _quote(token.text), (token.start, token.end)
    detail = _TOKEN_REPR.sub(lambda m: _quote(m.group(1)), detail.split("\n")[0])
    if detail.endswith(".") and not detail.endswith("..."):
        detail = detail[:-1]
    detail = detail.replace("'SENTINEL'", "end of input")
    detail = _REQUIRED.sub("expected an expression", detail)
    detail = detail.replace("Invalid expression / Unexpected token", "unexpected token")
    detail = re.sub(r"^Expecting (\S+)$", r"expected '\1'", detail)
    # "Expected ..." reads as "expected ..." after the colon; a keyword such as QUARTER stays as it is.
    if detail[:1].isupper() and detail[1:2].islower():
        detail = detail[:1].lower() + detail[1:]
    reporter.add("OVERJOIN_SYNTAX_ERROR", span, token=at, detail=detail)


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


def _input(relation: exp.Expr, sql: str | None = None) -> Input:
    node = relation.this if isinstance(relation, exp.Stream) else relation
    alias = node.alias or None
    table_name = None
    if isinstance(node, exp.Table) and isinstance(node.this, (exp.Func, exp.Window)):
        kind = "tvf"
        func = node.this.this if isinstance(node.this, exp.Window) else node.this
        # Named by the relation it windows, as the JVM names it.
        first = func.expressions[0] if getattr(func, "expressions", None) else None
        source = first.sql(dialect="spark") if first is not None else f"{func.sql_name()}(...)"
    elif isinstance(node, exp.Table):
        table_name = ".".join(part.name for part in node.parts)
        kind = "lookup" if _is_proctime_lookup(node.args.get("version")) else "table"
        first, last = node.parts[0].meta, node.parts[-1].meta
        # As the user wrote it (quotes included), as the JVM quotes it.
        source = sql[first["start"]: last["end"] + 1] if sql and "start" in first and "end" in last else table_name
    elif isinstance(node, exp.Subquery):
        kind, source = "subquery", "subquery"
    else:
        kind, source = "other", node.sql(dialect=D.dialect_for())
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
    if any(True for _ in _time_floors(block.select)):
        return True  # STEP(ts BY ...) and FLOOR(ts TO unit) are not Spark SQL (docs/syntax.md)
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
        if select.args.get("joins") and select.args.get("from_") is None:
            # sqlglot reads `SELECT a b JOIN c` as joins without a FROM; Spark does not.
            span = D.pos(select.args["joins"][0].this, "relation") or _span(select.args["joins"][0].this)
            token = _token_at(tokens, span[0]) if span else tokens[0]
            _syntax_error(reporter, token or tokens[0], "expected FROM before the first JOIN")
            continue
        block = block_model(select, reporter.text.sql)
        _check_duplicate_windows(block, reporter)
        if not block.streaming:
            continue
        _check_time_floors(block, reporter, tokens)
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
        self._check_window_qualifiers()
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
        if step.method == "ASOF":
            self.reporter.add("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", span, input=step.right.display,
                              detail="an ASOF join takes no window")  # fmt: skip
            return
        size = _WindowChecker(self, step.right, None).range_size(step.within)
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
                                  input=self.item.display)  # fmt: skip
            return None
        order = _order_column(spec)
        return Window(kind, a, b, bool(spec.args.get("partition_by")), order.name if order else None,
                      "over", _spec_text(spec))  # fmt: skip

    def _written(self, node: exp.Expr | None) -> str:
        """The text of a bound or interval exactly as the user wrote it."""
        spans = [span for sub in (node.walk() if node is not None else []) if sub._meta
                 for span in sub.meta.get("oj", {}).values()]
        if not spans:
            return _sql(node) if node is not None else ""
        return self.ctx.sql[min(a for a, _ in spans): max(b for _, b in spans) + 1]

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
            self.error("OVERJOIN_WINDOW_NEGATIVE_SIZE", D.pos(size, "minus"), size=self._written(size))
            return None
        if isinstance(size, exp.Literal) and re.fullmatch(r"\d+", size.name):
            return int(size.name)
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
                return self._negative(node)
            unsigned = body[1:] if body[:1] in ("-", "+") and body else body
            value = intervals.fields(unsigned, unit, to) if to else intervals.single(unsigned, unit)
            return self._value(value, node, literal, f"{unit} TO {to}" if to else unit)
        if unit is None:
            found = intervals.split_pairs(body) if literal.is_string else None
            if found is None:
                return self._value(intervals.BadValue(intervals.expected("multiUnit")), node, literal, "interval")
            if minus or any(n.startswith("-") for n, _ in found):
                return self._negative(node)
            return self._value(intervals.pairs(found), node, literal, "interval")
        # Spark's unquoted form: INTERVAL 5 SECONDS [3 MILLISECONDS ...].
        if minus:
            return self._negative(node)
        total = 0
        for pair in pairs:
            pair_unit = intervals.base_unit(pair.args["unit"])
            value = self._value(intervals.single(pair.this.name, pair_unit), pair, pair.this, pair_unit)
            if value is None:
                return None
            total += value
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
        return None

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
        return self.ctx.sql[span[0]: span[1] + 1] if span else ""


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


def _time_floors(select: exp.Select) -> Iterator[exp.Expr]:
    """``STEP(ts BY ...)`` and ``FLOOR(ts TO unit)`` calls of ``select`` itself, not of nested queries."""
    for node in select.find_all(D.TimeStep, exp.Floor):
        if isinstance(node, exp.Floor) and not node.args.get("to"):
            continue
        parent = node.parent
        while parent is not None and parent is not select and not isinstance(parent, (exp.Select, exp.Subquery)):
            parent = parent.parent
        if parent is select:
            yield node


_FLOOR_UNITS = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND")


def _check_time_floors(block: Block, reporter: _Reporter, tokens: list[Token]) -> None:
    """docs/semantics.md §11: a STEP interval of fixed length and above zero; a FLOOR unit."""
    for node in _time_floors(block.select):
        if isinstance(node, D.TimeStep):
            by = node.args.get("by")
            if not isinstance(by, D.WindowInterval):
                if isinstance(by, exp.Literal) and float(by.name) <= 0:
                    token = _token_at(tokens, D.pos(by, "value")[0]) if D.pos(by, "value") else None
                    if token is not None:
                        _syntax_error(reporter, token, "the step of STEP must be greater than zero")
                continue
            for pair in [by, *(by.args.get("more") or [])]:
                for key in ("unit", "to"):
                    word = (pair.args.get(key) or "").upper()
                    if word.rstrip("S") in ("YEAR", "MONTH", "QUARTER"):
                        unit = word.rstrip("S")
                        token = _token_at(tokens, D.pos(pair, key)[0])
                        if token is not None:
                            _syntax_error(reporter, token, "STEP takes an interval of fixed length (SECOND, MINUTE, "
                                          f"HOUR or DAY); for calendar {unit.lower()}s write FLOOR(ts TO {unit})")
                        break
            literal = by.this
            if literal is not None and re.fullmatch(r"[0:. ]+", literal.name.strip() or "x"):
                start = D.pos(by, "interval")
                if start is not None:
                    written = _text_of(reporter, by)
                    reporter.add("OVERJOIN_SYNTAX_ERROR", (start[0], start[0] + len(written) - 1), token=written,
                                 detail="the interval of STEP must be longer than zero")
        else:
            unit = node.args["to"].name.upper()
            if unit.rstrip("S") not in _FLOOR_UNITS:
                token = next((t for i, t in enumerate(tokens) if i and tokens[i - 1].text.upper() == "TO"
                              and t.text.upper() == unit), None)
                if token is not None:
                    _syntax_error(reporter, token, f"expected a unit ({', '.join(_FLOOR_UNITS)})")


def _text_of(reporter: _Reporter, node: D.WindowInterval) -> str:
    """The interval as written, from INTERVAL to its last unit (or value)."""
    start = D.pos(node, "interval")
    if start is None:
        return ""
    last = [node, *(node.args.get("more") or [])][-1]
    ends = [p[1] for p in (D.pos(last, k) for k in ("literal", "unit", "precision", "to", "to_precision")) if p]
    return reporter.text.sql[start[0] : max(ends, default=start[1]) + 1]


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
