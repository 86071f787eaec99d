"""The statements of streams and pumps (docs/semantics.md §10), checked as the JVM's
``StreamStatementParser`` reads them; a pump's query is handed back to be checked as any query."""

from __future__ import annotations

from sqlglot.tokens import Token, TokenType

from overjoin.validator.common import (
    _syntax_error,
)
from overjoin.validator.diagnostics import (
    Reporter,
)
from overjoin.validator.record_checks import check_record_schema


def _words(tokens: list[Token], count: int) -> list[str]:
    return [
        t.text.upper() if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else "" for t in tokens[:count]
    ]


def _schema_literal(text: str) -> bool:
    """Whether a ``SET SCHEMA`` string names one schema: ``'"name"'`` or ``'name'``."""
    inner = text.strip()
    if inner[:1] == '"' and inner[-1:] == '"' and len(inner) >= 2:
        return len(inner) > 2 and '"' not in inner[1:-1].replace('""', "")
    return inner.replace("_", "a").isalnum() and not inner[:1].isdigit()


def _is_stream_statement(tokens: list[Token]) -> bool:
    """The statements of streams and pumps, recognized as the JVM's StreamStatementParser does."""
    w = [*_words(tokens, 6), "", "", "", "", "", ""]
    if w[0] == "CREATE":
        if w[1:4] == ["OR", "REPLACE", "SCHEMA"]:
            return True
        at = 3 if w[1] == "OR" and w[2] == "REPLACE" else 1
        if w[at] == "REFERENCE" and w[at + 1] == "TABLE":
            return True
        return w[at] in ("STREAM", "PUMP")
    if w[0] == "REFRESH":
        return w[1:3] == ["REFERENCE", "TABLE"]
    if w[0] == "SET":
        return w[1] == "SCHEMA" and len(tokens) == 3 and tokens[2].token_type == TokenType.STRING
    if w[0] == "ALTER":
        return w[1] == "PUMP"
    if w[0] == "DROP":
        return w[1] in ("PUMP", "STREAM")
    if w[0] == "SHOW":
        return w[1] in ("PUMPS", "STREAMS") and len(tokens) == 2
    if w[0] in ("DESCRIBE", "DESC"):
        return w[1] == "PUMP" and len(tokens) > 2
    return False


def _stream_statement(tokens: list[Token], reporter: Reporter) -> list[Token] | None:
    """Checks a stream or pump statement's own syntax; returns a pump's query (its tokens, which
    keep their offsets in the text), to be checked as any other statement, or None."""
    pos = 0

    def fail(detail: str) -> None:
        if pos < len(tokens):
            _syntax_error(reporter, tokens[pos], detail)
        else:
            _syntax_error(reporter, tokens[-1], detail, at_end=True)

    def is_name(i: int) -> bool:
        return (
            i < len(tokens)
            and tokens[i].token_type not in (TokenType.STRING, TokenType.NUMBER)
            and (
                tokens[i].text[:1].isalpha()
                or tokens[i].text[:1] == "_"
                or tokens[i].token_type == TokenType.IDENTIFIER
            )
        )

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
    if w[0] == "REFRESH":
        pos = 3
        if name("a reference table name") and pos < len(tokens):
            fail("expected the end of the statement")
        return None
    if (
        w[0] == "CREATE"
        and "REFERENCE" in w[1:4]
        and w[w.index("REFERENCE") + 1 : w.index("REFERENCE") + 2] == ["TABLE"]
    ):
        pos = w.index("REFERENCE") + 2
        name_at = pos
        if not name("a reference table name"):
            return None
        if pos >= len(tokens) or tokens[pos].token_type != TokenType.L_PAREN:
            fail("expected ( and the table's columns")
            return None
        check_record_schema(reporter.text.sql, tokens, name_at, pos, reporter)
        return None
    if w[0] == "SET":
        pos = 2
        if not _schema_literal(tokens[2].text):
            fail("expected a schema name in quotes, such as '\"name\"'")
        return None
    if w[:4] == ["CREATE", "OR", "REPLACE", "SCHEMA"]:
        pos = 4
        if not is_name(pos):
            fail("expected schema name")
            return None
        pos += 1
        if pos < len(w) and w[pos] in ("DESCRIPTION", "COMMENT"):
            pos += 1
            if pos >= len(tokens) or tokens[pos].token_type != TokenType.STRING:
                fail("expected a quoted description")
                return None
            pos += 1
        if pos < len(tokens):
            fail("expected the end of the statement")
        return None
    if w[0] == "CREATE":
        pos = 4 if w[1] == "OR" and w[2] == "REPLACE" else 2
        kind = w[pos - 1]
        name_at = pos
        if not name("a pump name" if kind == "PUMP" else "a stream name"):
            return None
        if kind == "STREAM":
            if pos >= len(tokens) or tokens[pos].token_type != TokenType.L_PAREN:
                fail("expected ( and the stream's columns")
                return None
            check_record_schema(reporter.text.sql, tokens, name_at, pos, reporter)
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
        if (
            pos + 1 < len(tokens)
            and tokens[pos].token_type == TokenType.L_PAREN
            and w[pos + 1] not in ("SELECT", "WITH")
        ):
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
        # `ALTER PUMP "schema".*`: every pump of a schema (s-Server); else `[schema.]name`.
        every = (
            is_name(pos)
            and pos + 2 < len(tokens)
            and tokens[pos + 1].token_type == TokenType.DOT
            and tokens[pos + 2].token_type == TokenType.STAR
        )
        if every:
            pos += 3
        if every or name("a pump name"):
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
