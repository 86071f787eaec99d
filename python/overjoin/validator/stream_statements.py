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
from overjoin.validator.record_checks import _unquote, check_record_schema, stream_name
from overjoin.validator.sserver_checks import (
    FILE_SERVER,
    FOREIGN_TABLE_DETAIL,
    JAVA_CODE_DETAIL,
    MERGE_DETAIL,
    PAUSE_DETAIL,
    SERVER_DETAIL,
    check_foreign_stream,
    is_double_quoted,
    other_server,
    path_literal,
    refuse,
)


def _words(tokens: list[Token], count: int) -> list[str]:
    return [
        t.text.upper() if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else "" for t in tokens[:count]
    ]


def refused_adapter(tokens: list[Token]) -> tuple[Token, str] | None:
    """s-Server's statements of adapters and Java code, which have no overjoin form: the token to
    point at and why (the JVM's ``StreamStatementParser.refusedAdapter``)."""
    w = [*_words(tokens, len(tokens)), "", "", ""]
    if w[0] != "CREATE":
        return None
    k = 3 if w[1:3] == ["OR", "REPLACE"] else 1
    if w[k] == "SERVER":
        return tokens[k], SERVER_DETAIL
    if w[k : k + 2] == ["FOREIGN", "TABLE"]:
        return tokens[k], FOREIGN_TABLE_DETAIL
    if w[k : k + 3] == ["FOREIGN", "DATA", "WRAPPER"] or w[k] == "JAR":
        return tokens[k], JAVA_CODE_DETAIL
    if w[k] == "FUNCTION" and any(w[i : i + 2] == ["LANGUAGE", "JAVA"] for i in range(len(tokens))):
        return tokens[k], JAVA_CODE_DETAIL
    return None


def _schema_literal(text: str) -> bool:
    """Whether a ``SET SCHEMA`` string names one schema: ``'"name"'`` or ``'name'``."""
    inner = text.strip()
    if inner[:1] == '"' and inner[-1:] == '"' and len(inner) >= 2:
        return len(inner) > 2 and '"' not in inner[1:-1].replace('""', "")
    return inner.replace("_", "a").isalnum() and not inner[:1].isdigit()


def _is_stream_statement(tokens: list[Token], sql: str) -> bool:
    """The statements of streams and pumps, recognized as the JVM's StreamStatementParser does."""
    w = [*_words(tokens, 6), "", "", "", "", "", ""]
    if w[0] == "CREATE":
        if w[1:4] == ["OR", "REPLACE", "SCHEMA"]:
            return True
        at = 3 if w[1] == "OR" and w[2] == "REPLACE" else 1
        if w[at] == "REFERENCE" and w[at + 1] == "TABLE":
            return True
        if w[at] == "FOREIGN" and w[at + 1] == "STREAM":
            return True
        return w[at] in ("STREAM", "PUMP")
    if w[0] == "REFRESH":
        return w[1:3] == ["REFERENCE", "TABLE"]
    if w[0] == "SET":
        return w[1] in ("SCHEMA", "PATH") and len(tokens) == 3 and tokens[2].token_type == TokenType.STRING
    if w[0] == "ALTER":
        return w[1] in ("PUMP", "STREAM")
    if w[0] == "DROP":
        if w[1] == "SCHEMA":
            # s-Server's spelling, a double-quoted name; Spark's own DROP SCHEMA otherwise.
            at = 4 if w[2:4] == ["IF", "EXISTS"] else 2
            return at < len(tokens) and is_double_quoted(tokens[at], sql)
        return w[1] in ("PUMP", "STREAM")
    if w[0] == "SHOW":
        return w[1] in ("PUMPS", "STREAMS") and len(tokens) == 2
    if w[0] in ("DESCRIBE", "DESC"):
        return w[1] == "PUMP" and len(tokens) > 2
    return False


def _fail_at(reporter: Reporter, tokens: list[Token], pos: int, detail: str) -> None:
    """A syntax error at token ``pos``, or at the end of the statement when it has no more tokens."""
    if pos < len(tokens):
        _syntax_error(reporter, tokens[pos], detail)
    else:
        _syntax_error(reporter, tokens[-1], detail, at_end=True)


def _is_name(tokens: list[Token], i: int) -> bool:
    """Whether token ``i`` can be a name: a word or a quoted identifier, not a string or a number."""
    return (
        i < len(tokens)
        and tokens[i].token_type not in (TokenType.STRING, TokenType.NUMBER)
        and (tokens[i].text[:1].isalpha() or tokens[i].text[:1] == "_" or tokens[i].token_type == TokenType.IDENTIFIER)
    )


def _stream_statement(tokens: list[Token], reporter: Reporter) -> list[Token] | None:
    """Checks a stream or pump statement's own syntax; returns a pump's query (its tokens, which
    keep their offsets in the text), to be checked as any other statement, or None."""
    pos = 0

    def fail(detail: str) -> None:
        _fail_at(reporter, tokens, pos, detail)

    def is_name(i: int) -> bool:
        return _is_name(tokens, i)

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
    sql = reporter.text.sql
    if w[0] == "CREATE" and "FOREIGN" in w[1:4]:
        _foreign_stream(tokens, w, w.index("FOREIGN") + 2, reporter)
        return None
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
        if w[1] == "PATH":
            if not path_literal(_unquote(tokens[2], sql)):
                fail('expected a list of schema names in quotes, such as \'"name"\' or \'"a", "b"\'')
        elif not _schema_literal(tokens[2].text):
            fail("expected a schema name in quotes, such as '\"name\"'")
        return None
    if w[0] == "DROP" and w[1] == "SCHEMA":
        # DROP SCHEMA [IF EXISTS] "name" [CASCADE | RESTRICT]: the name was checked to be there.
        pos = (4 if w[2:4] == ["IF", "EXISTS"] else 2) + 1
        if pos < len(w) and w[pos] in ("CASCADE", "RESTRICT"):
            pos += 1
        if pos < len(tokens):
            fail("expected the end of the statement")
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
            if word == "INSERT" and pos < len(w) and w[pos] == "MERGE":
                refuse(reporter, tokens[pos], reporter.text.sql, MERGE_DETAIL)
                return None
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
        # s-Server's lists: `ALTER PUMP "s".*, p START`, `ALTER STREAM "s"."x" RESET`.
        kind = "pump" if w[1] == "PUMP" else "stream"
        pos = 2
        while True:
            if not is_name(pos):
                fail(f"expected {kind} name")
                return None
            pos += 1
            if pos < len(tokens) and tokens[pos].token_type == TokenType.DOT:
                pos += 1
                if (pos < len(tokens) and tokens[pos].token_type == TokenType.STAR) or is_name(pos):
                    pos += 1
                else:
                    fail(f"expected {kind} name or *")
                    return None
            if pos < len(tokens) and tokens[pos].token_type == TokenType.COMMA:
                pos += 1
                continue
            break
        action = w[pos] if pos < len(w) else ""
        if kind == "pump" and action not in ("START", "STOP"):
            fail("expected START or STOP")
        elif kind == "stream" and action in ("PAUSE", "RESUME"):
            refuse(reporter, tokens[pos], sql, PAUSE_DETAIL)
        elif kind == "stream" and action != "RESET":
            fail("expected RESET")
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


def _foreign_stream(tokens: list[Token], w: list[str], at: int, reporter: Reporter) -> None:
    """``CREATE [OR REPLACE] FOREIGN STREAM name (cols) SERVER server [OPTIONS (key 'value', ...)]
    [DESCRIPTION '...']``, as ``StreamStatementParser.createForeignStream`` reads it."""
    sql = reporter.text.sql
    pos = at

    def fail(detail: str) -> None:
        _fail_at(reporter, tokens, pos, detail)

    def is_name(i: int) -> bool:
        return _is_name(tokens, i)

    if not is_name(pos):
        return fail("expected stream name")
    name_at = pos
    pos += 1
    if pos + 1 < len(tokens) and tokens[pos].token_type == TokenType.DOT and is_name(pos + 1):
        pos += 2
    elif pos < len(tokens) and tokens[pos].token_type == TokenType.DOT:
        pos += 1
        return fail("expected stream name")
    if pos >= len(tokens) or tokens[pos].token_type != TokenType.L_PAREN:
        return fail("expected ( and the stream's columns")
    if not check_record_schema(sql, tokens, name_at, pos, reporter):
        return None
    # The declared columns' names, and past the column list.
    columns: list[str] = []
    depth, expect_name = 0, True
    while pos < len(tokens):
        t = tokens[pos]
        pos += 1
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and t.token_type == TokenType.COMMA:
            expect_name = True
        elif depth == 1 and expect_name and is_name(pos - 1):
            columns.append(t.text)
            expect_name = False
    if depth > 0:
        return fail("expected )")
    if pos >= len(w) or w[pos] != "SERVER":
        return fail("expected SERVER and the foreign server's name")
    pos += 1
    if not is_name(pos):
        return fail("expected a server name")
    server = tokens[pos]
    if server.text.upper() != FILE_SERVER:
        refuse(reporter, server, sql, other_server(server.text))
        return None
    pos += 1
    options: list[tuple[Token, Token]] = []
    if pos < len(w) and w[pos] == "OPTIONS":
        pos += 1
        if pos >= len(tokens) or tokens[pos].token_type != TokenType.L_PAREN:
            return fail("expected ( after OPTIONS")
        pos += 1
        while True:
            if not (is_name(pos) or (pos < len(tokens) and tokens[pos].token_type == TokenType.IDENTIFIER)):
                return fail("expected an option name")
            key = tokens[pos]
            pos += 1
            if pos >= len(tokens) or tokens[pos].token_type != TokenType.STRING:
                return fail("expected a quoted value")
            options.append((key, tokens[pos]))
            pos += 1
            if pos < len(tokens) and tokens[pos].token_type == TokenType.R_PAREN:
                pos += 1
                break
            if pos >= len(tokens) or tokens[pos].token_type != TokenType.COMMA:
                return fail("expected , or )")
            pos += 1
    if pos < len(w) and w[pos] == "DESCRIPTION":
        pos += 1
        if pos >= len(tokens) or not (tokens[pos].token_type == TokenType.STRING or is_double_quoted(tokens[pos], sql)):
            return fail("expected a quoted description")
        pos += 1
    if pos < len(tokens):
        return fail("expected the end of the statement")
    check_foreign_stream(sql, stream_name(tokens, name_at), server, columns, options, reporter)
    return None
