"""Statements: the text tokenized once, split at ``;``, each statement parsed on its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from overjoin import dialect as D
from overjoin.validator.common import (
    _quote,
    _syntax_error,
    _token_at,
    _unterminated_offset,
)
from overjoin.validator.diagnostics import (
    Reporter,
    Text,
)
from overjoin.validator.model import (
    block_model,
)
from overjoin.validator.sserver_checks import refuse
from overjoin.validator.stream_statements import (
    _is_stream_statement,
    _stream_statement,
    refused_adapter,
)

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


def parse_statements(sql: str, reporter: Any = None, double_quoted_identifiers: bool = False) -> list[Statement]:
    """Tokenize and parse ``sql`` statement by statement; syntax errors go to ``reporter``.

    A statement in the streaming dialect reads ``"x"`` as an identifier, as s-Server does
    (docs/semantics.md §0); every other statement keeps Spark's rule, where ``"x"`` is a string
    unless ``double_quoted_identifiers`` (Spark's ``spark.sql.ansi.doubleQuotedIdentifiers``).
    """
    reporter = reporter if reporter is not None else Reporter(Text(sql))
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
        adapter = refused_adapter(quoted_chunk)
        if adapter is not None:
            refuse(reporter, adapter[0], sql, adapter[1])
            continue
        if _is_stream_statement(quoted_chunk, sql):
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


def _has_streaming_block(tree: exp.Expr) -> bool:
    return any(block_model(select).streaming for select in tree.find_all(exp.Select))


def _report(statement: Statement, reporter: Reporter) -> Statement:
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
        rest = rest[mode.end() :]
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
