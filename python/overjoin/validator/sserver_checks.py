"""s-Server's statements that the JVM's ``StreamStatementParser`` reads besides KDA's (docs/server.md,
"s-Server's statements"): schema names as databases (``SchemaNames``), ``SET PATH``'s list,
``ALTER STREAM ... RESET`` (and the refused ``PAUSE``/``RESUME``), and ``CREATE FOREIGN STREAM`` over
``FILE_SERVER`` (``ForeignStreams``), checked with the same codes, positions and parameters."""

from __future__ import annotations

import re

from sqlglot.tokens import Token, TokenType

from overjoin.validator.common import schema_database
from overjoin.validator.diagnostics import Reporter
from overjoin.validator.record_checks import JsonPath, _check_options, _unquote, parse_json_path, unescape

__all__ = [
    "PAUSE_DETAIL",
    "check_foreign_stream",
    "is_double_quoted",
    "path_literal",
    "refuse",
    "schema_database",
]

FILE_SERVER = "FILE_SERVER"
#: FILE_SERVER's options that overjoin reads (besides ``<column>_PATH``): ``ForeignStreams.Known``.
KNOWN = ("DIRECTORY", "FILENAME_PATTERN", "PARSER", "SEPARATOR", "ROW_SEPARATOR", "SKIP_HEADER",
         "QUOTE_CHARACTER", "CHARACTER_ENCODING", "ROW_PATH")  # fmt: skip
_CSV_ONLY = frozenset({"SEPARATOR", "ROW_SEPARATOR", "SKIP_HEADER", "QUOTE_CHARACTER"})

#: ``StreamStatementParser.PauseDetail``.
PAUSE_DETAIL = (
    "overjoin does not pause a stream's rows (s-Server's PAUSE and RESUME): stop the pumps that write or read "
    "it with ALTER PUMP ... STOP, and start them with ALTER PUMP ... START (a pump resumes where it stopped)"
)


def is_double_quoted(token: Token, sql: str) -> bool:
    return token.token_type == TokenType.IDENTIFIER and sql[token.start : token.start + 1] == '"'


SERVER_DETAIL = (
    "s-Server's CREATE SERVER (a connection through a foreign data wrapper) has no overjoin "
    "form: declare what it connects to as a stream (CREATE STREAM name (cols) WITH (format = 'kinesis' | 'kafka' | "
    "'json', ...)) or, for a database, as a Spark table (CREATE TABLE name USING jdbc OPTIONS (...))"
)
FOREIGN_TABLE_DETAIL = (
    "s-Server's CREATE FOREIGN TABLE has no overjoin form: read the table as a Spark "
    "table (CREATE TABLE name USING jdbc OPTIONS (url '...', dbtable '...')) and join a stream with it"
)
JAVA_CODE_DETAIL = (
    "s-Server's CREATE JAR, CREATE FOREIGN DATA WRAPPER and Java functions load Java code "
    "into s-Server: overjoin runs Spark's, so give the jar to the server (overjoin server --jars) and register each "
    "function with Spark's CREATE FUNCTION name AS 'class'"
)


MERGE_DETAIL = (
    "a pump inserts into a stream; s-Server's MERGE INTO (an upsert into a foreign table) "
    "has no overjoin form: write INSERT INTO a stream, and merge that stream's rows into the table with Spark "
    "(MERGE INTO a Delta or Iceberg table)"
)


def refuse(reporter: Reporter, token: Token, sql: str, detail: str) -> None:
    """OJ001 at ``token`` with ``detail`` as written (the JVM's ``Cursor.refuse``)."""
    reporter.add("OVERJOIN_SYNTAX_ERROR", (token.start, token.end), token=f"'{sql[token.start : token.end + 1]}'",
                 detail=detail)  # fmt: skip


_PATH_ELEMENT = re.compile(r'\s*(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)\s*')


def path_literal(inner: str) -> bool:
    """Whether ``SET PATH``'s string holds a list of schema names (``'"a", b'``): ``pathIn``."""
    i, n, first = 0, len(inner), True
    while True:
        if not first:
            if i >= n:
                return True
            if inner[i] != ",":
                return False
            i += 1
        m = _PATH_ELEMENT.match(inner, i)
        if m is None or not m.group().strip():
            return False
        i, first = m.end(), False
        while i < n and inner[i].isspace():
            i += 1


def other_server(server: str) -> str:
    """``ForeignStreams.otherServer``: why a server is refused and what to declare instead."""
    upper = server.upper()
    if "KAFKA" in upper:
        instead = (
            "a Kafka topic is CREATE STREAM name (...) WITH (format = 'kafka', `kafka.bootstrap.servers` = '...', "
            "subscribe = '...', value_format = 'json'), with the server started with --packages "
            "org.apache.spark:spark-sql-kafka-0-10_2.13:<Spark's version>"
        )
    elif "KINESIS" in upper:
        instead = (
            "a Kinesis data stream is CREATE STREAM name (...) WITH (format = 'kinesis', stream = '...', "
            "region = '...')"
        )
    else:
        instead = (
            "declare the source as CREATE STREAM name (...) WITH (format = ..., ...), a folder or a Spark streaming "
            "source (docs/server.md)"
        )
    return (
        f"overjoin reads s-Server's {FILE_SERVER} (files arriving in a directory) and no other foreign server: "
        + instead
    )


def check_foreign_stream(sql: str, stream: str, server: Token, columns: list[str],
                         options: list[tuple[Token, Token]], reporter: Reporter) -> bool:  # fmt: skip
    """The options of a FILE_SERVER foreign stream, checked as ``ForeignStreams.fileOptions`` checks
    them, in the order written; False when an error was reported."""

    def fail(token: Token, detail: str) -> bool:
        refuse(reporter, token, sql, detail)
        return False

    def ident(t: Token) -> str:
        return t.text

    parser = next(
        (
            _unquote(v, sql).upper()
            for k, v in options
            if ident(k).upper() == "PARSER" and _unquote(v, sql).upper() in ("CSV", "JSON")
        ),
        None,
    )
    seen: set[str] = set()
    given: dict[str, tuple[str, Token]] = {}
    paths: list[tuple[str, JsonPath, Token]] = []
    for k, v in options:
        name = ident(k)
        key = name.upper()
        text = _unquote(v, sql)
        column: str | None = None
        if key not in KNOWN and key.endswith("_PATH"):
            wanted = name[:-5]
            column = next((c for c in columns if c == wanted), None) or next(
                (c for c in columns if c.lower() == wanted.lower()), None
            )
            if column is None:
                return fail(
                    k, f"{name} names no column of the stream: write a declared column's name followed by _PATH"
                )
        if column is None and key not in KNOWN:
            return fail(k, f"{FILE_SERVER} has no option {name} that overjoin reads: leave it out (overjoin reads "
                           f"{', '.join(KNOWN)} and a column's name followed by _PATH)")  # fmt: skip
        seen_key = column.lower() + "_PATH" if column is not None else key
        if seen_key in seen:
            return fail(k, f"{name} is given twice")
        seen.add(seen_key)
        if key == "PARSER" and text.upper() not in ("CSV", "JSON"):
            return fail(v, f"PARSER '{text}' is not one overjoin reads: write 'CSV' or 'JSON'")
        if key == "SKIP_HEADER" and text.upper() not in ("TRUE", "FALSE"):
            return fail(v, "SKIP_HEADER takes 'true' or 'false'")
        if key == "QUOTE_CHARACTER" and text != '"':
            return fail(v, 'overjoin reads fields quoted with " only: drop QUOTE_CHARACTER')
        if key == "CHARACTER_ENCODING" and text.upper() != "UTF-8":
            return fail(v, "overjoin reads UTF-8 files only: write 'UTF-8' or drop the option")
        if key in ("SEPARATOR", "ROW_SEPARATOR") and not unescape(text):
            return fail(v, f"{key} is empty: give the separator, such as ',' or '\\t' (a tab)")
        json_only = key == "ROW_PATH" or column is not None
        if parser == "JSON" and key in _CSV_ONLY:
            return fail(k, f"{name} applies to PARSER 'CSV' only: drop it")
        if parser == "CSV" and json_only:
            return fail(k, f"{name} applies to PARSER 'JSON' only: drop it")
        if json_only:
            path, problem, offset = parse_json_path(text)
            if path is None:
                start = v.start + 1 + max(0, offset)
                reporter.add("OVERJOIN_INPUT_SCHEMA", (start, max(start, v.end - 1)), stream=stream,
                             what=f"the option {name} '{text}'", problem=problem,
                             fix="overjoin reads KDA's paths: $ (the document), .name steps and [0:] "
                                 "(every element of an array)")  # fmt: skip
                return False
            if column is not None:
                paths.append((column, path, v))
        given[key] = (text, v)
    if "DIRECTORY" not in given:
        return fail(server, f"{FILE_SERVER} needs the option DIRECTORY '...': the folder the files arrive in")
    if "PARSER" not in given:
        return fail(server, f"{FILE_SERVER} needs the option PARSER 'CSV' or 'JSON'")
    kind = "csv" if parser == "CSV" else "json"
    parser_token = given["PARSER"][1]
    record: dict[str, tuple[str, Token]] = {"format": (kind, parser_token), "record_format": (kind, parser_token)}
    written = {"record_column_delimiter": "SEPARATOR", "record_row_delimiter": "ROW_SEPARATOR",
               "record_row_path": "ROW_PATH"}  # fmt: skip
    for as_key, key in written.items():
        if key in given:
            record[as_key] = given[key]

    def report(start: int, end: int, what: str, problem: str, fix: str) -> bool:
        reporter.add("OVERJOIN_INPUT_SCHEMA", (start, end), stream=stream, what=what, problem=problem, fix=fix)
        return False

    return _check_options(
        sql, stream, record, paths, report,
        describe=lambda key, value: f"the option {written.get(key, key)} '{value}'",
        describe_mapping=lambda column, path: f"the option {column}_PATH '{path}'",
    )  # fmt: skip
