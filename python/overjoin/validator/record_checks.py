"""A stream's input schema (docs/server.md, "Input schemas"), checked as the JVM's ``StreamColumns``
and ``RecordOptions`` check it: each column's ``MAPPING '$.path'`` (KDA's JSONPath: ``$``, ``.name``,
``[0:]``), the ``record_*`` options of ``WITH (...)``, and KDA's rule of one flattened array per
schema. Errors are ``OVERJOIN_INPUT_SCHEMA`` (OJ125) at the same text and with the same parameters
as the JVM's (``tests/spark/test_corpus_agreement.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot.tokens import Token, TokenType

from overjoin.validator.common import schema_database
from overjoin.validator.diagnostics import Reporter

__all__ = ["JsonPath", "check_record_schema", "parse_json_path"]

ELEMENTS = "[0:]"


@dataclass(frozen=True)
class JsonPath:
    """A parsed mapping: its text and steps (a field name, or ``[0:]``)."""

    text: str
    steps: tuple[str, ...]

    @property
    def arrays(self) -> int:
        return sum(1 for s in self.steps if s == ELEMENTS)


def render(steps: tuple[str, ...]) -> str:
    return "$" + "".join(s if s == ELEMENTS else "." + s for s in steps)


def parse_json_path(text: str) -> tuple[JsonPath | None, str, int]:
    """(path, "", 0), or (None, problem, offset of the problem in `text`): the JVM's JsonPath.parse."""
    if not text.startswith("$"):
        return None, "a mapping starts with $ (the record), as in '$.ticker'", 0
    steps: list[str] = []
    i, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == ".":
            start = j = i + 1
            while j < n and text[j] not in ".[":
                j += 1
            name = text[start:j]
            if not name:
                return None, "a field name is missing after '.'", i
            if any(ch.isspace() or ch in "]'\"*" for ch in name):
                return (
                    None,
                    f"'{name}' is not a field name KDA reads ($.name steps hold no spaces, quotes, * or ])",
                    start,
                )
            steps.append(name)
            i = j
        elif c == "[":
            close = text.find("]", i)
            inside = text[i + 1 :] if close < 0 else text[i + 1 : close]
            if close < 0 or inside.strip() != "0:":
                shown = f"[{inside}{'' if close < 0 else ']'}"
                return None, (f"'{shown}' is not an array form KDA reads: write [0:] "
                              "(every element; KDA has no [n], [*] or other slices)"), i  # fmt: skip
            steps.append(ELEMENTS)
            i = close + 1
        else:
            return None, f"'{c}' cannot follow {text[:i]}: write .name or [0:]", i
    path = JsonPath(text, tuple(steps))
    if path.arrays > 1:
        first = text.find("[0:]")
        return (
            None,
            "only one [0:] per mapping: KDA reads one level of array (such as $.orders[0:].item)",
            text.find("[0:]", first + 1),
        )
    return path, "", 0


def _unquote(token: Token, sql: str) -> str:
    """A string token's text as the JVM's parser keeps it: between its quotes, a doubled quote
    collapsed, backslashes as written."""
    raw = sql[token.start + 1 : token.end]
    q = sql[token.start]
    return raw.replace(q + q, q)


def unescape(s: str) -> str:
    """A delimiter as written in SQL, read: the JVM's RecordSchema.unescape."""
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'"}
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if nxt == "u" and i + 5 < len(s) and re.fullmatch(r"[0-9A-Fa-f]{4}", s[i + 2 : i + 6]):
                out.append(chr(int(s[i + 2 : i + 6], 16)))
                i += 6
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _is_name(t: Token) -> bool:
    return t.token_type not in (TokenType.STRING, TokenType.NUMBER) and (
        t.text[:1].isalpha() or t.text[:1] == "_" or t.token_type == TokenType.IDENTIFIER
    )


def _quote_if_needed(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "`" + name.replace("`", "``") + "`"


def stream_name(tokens: list[Token], pos: int) -> str:
    """The name the JVM's parser gives a stream at `pos` (``name`` or ``db.name``, quoted where needed;
    an s-Server schema name as its database, ``SchemaNames``)."""
    if pos + 2 < len(tokens) and tokens[pos + 1].token_type == TokenType.DOT and _is_name(tokens[pos + 2]):
        return _quote_if_needed(schema_database(tokens[pos].text)) + "." + _quote_if_needed(tokens[pos + 2].text)
    return _quote_if_needed(tokens[pos].text)


def check_record_schema(sql: str, tokens: list[Token], name_at: int, open_at: int, reporter: Reporter) -> bool:
    """Checks the column list opening at `open_at` and the WITH options after it; False when an
    error was reported."""
    stream = stream_name(tokens, name_at)

    def report(start: int, end: int, what: str, problem: str, fix: str) -> bool:
        reporter.add("OVERJOIN_INPUT_SCHEMA", (start, end), stream=stream, what=what, problem=problem, fix=fix)
        return False

    # The columns: a MAPPING after a column's type.
    mappings: list[tuple[str, JsonPath, Token]] = []
    depth, i, column = 1, open_at + 1, None
    while i < len(tokens) and depth > 0:
        t = tokens[i]
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 1 and t.token_type == TokenType.COMMA:
            column = None
        elif depth == 1 and column is None and _is_name(t):
            column = t.text
        elif depth == 1 and column is not None and t.text.upper() == "MAPPING" and t.token_type != TokenType.STRING:
            literal = tokens[i + 1] if i + 1 < len(tokens) else None
            if literal is None or literal.token_type != TokenType.STRING:
                return report(t.start, t.end, f"the MAPPING of column {column}", "is not followed by a quoted path",
                              "write MAPPING '$.field' after the column's type")  # fmt: skip
            text = _unquote(literal, sql)
            path, problem, offset = parse_json_path(text)
            if path is None:
                start = literal.start + 1 + max(0, offset)
                return report(start, max(start, literal.end - 1), f"the MAPPING '{text}' of column {column}", problem,
                              "KDA reads $ (the record), .name steps and [0:] (every element of an array)")  # fmt: skip
            mappings.append((column, path, literal))
            i += 1
        i += 1
    # The options of WITH (...).
    options: dict[str, tuple[str, Token]] = {}
    while i < len(tokens):
        if tokens[i].text.upper() == "WITH" and i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN:
            j = i + 2
            while j + 2 < len(tokens) and tokens[j + 1].token_type == TokenType.EQ:
                key, value = tokens[j], tokens[j + 2]
                k = (_unquote(key, sql) if key.token_type == TokenType.STRING else key.text).lower()
                v = _unquote(value, sql) if value.token_type == TokenType.STRING else value.text
                options[k] = (v, value)
                j += 4 if j + 3 < len(tokens) and tokens[j + 3].token_type == TokenType.COMMA else 3
                if j - 1 < len(tokens) and tokens[j - 1].token_type == TokenType.R_PAREN:
                    break
            i = j
        else:
            i += 1
    return _check_options(sql, stream, options, mappings, report)


Report = Callable[[int, int, str, str, str], bool]


def _kda_option(key: str, value: str) -> str:
    return f"the option {key} = '{value}'"


def _kda_mapping(column: str, path: str) -> str:
    return f"the MAPPING '{path}' of column {column}"


def _check_options(sql: str, stream: str, options: dict[str, tuple[str, Token]],
                   mappings: list[tuple[str, JsonPath, Token]], report: Report,
                   describe: Callable[[str, str], str] = _kda_option,
                   describe_mapping: Callable[[str, str], str] = _kda_mapping) -> bool:  # fmt: skip
    """``RecordOptions.check``; ``describe`` and ``describe_mapping`` name an option and a column's
    mapping as the statement wrote them (an s-Server foreign stream writes them as options)."""

    def fail(key: str, problem: str, fix: str) -> bool:
        value, token = options[key]
        quoted = token.token_type == TokenType.STRING
        start = token.start + 1 if quoted else token.start
        end = token.end - 1 if quoted else token.end
        return bool(report(start, max(start, end), describe(key, value), problem, fix))

    fmt_key = "record_format" if "record_format" in options else ("value_format" if "value_format" in options else None)
    if fmt_key and options[fmt_key][0].lower() not in ("json", "csv"):
        return fail(fmt_key, "is not a record format KDA reads", "write 'json' or 'csv'")
    # A folder of CSV files (format = 'csv') holds CSV records unless record_format says otherwise.
    written = options[fmt_key][0] if fmt_key else options["format"][0] if "format" in options else ""
    is_csv = written.lower() == "csv"
    if "record_encoding" in options and options["record_encoding"][0].upper() != "UTF-8":
        return fail(
            "record_encoding", "is not an encoding KDA reads", "records are UTF-8: write 'UTF-8' or drop the option"
        )
    for key in ("record_row_delimiter", "record_column_delimiter"):
        if key in options:
            if not is_csv:
                return fail(key, "applies to CSV records only", "add record_format = 'csv', or drop it")
            if not unescape(options[key][0]):
                return fail(key, "is empty", "give the delimiter, such as ',' or '\\t' (a tab) or '\\n' (a newline)")
    row_path = JsonPath("$", ())
    if "record_row_path" in options:
        if is_csv:
            return fail("record_row_path", "applies to JSON records only", "drop it, or write record_format = 'json'")
        parsed, why, _ = parse_json_path(options["record_row_path"][0])
        if parsed is None:
            return fail("record_row_path", why,
                        "write '$' (each document is a row) or '$.records[0:]' (each element of records)")  # fmt: skip
        if parsed.arrays > 0 and parsed.steps[-1] != ELEMENTS:
            return fail("record_row_path", "must end at its [0:] (the rows are that array's elements)",
                        "write the path of the array, such as '$.records[0:]'")  # fmt: skip
        row_path = parsed
    if is_csv:
        return True
    # KDA flattens one array per schema, the row path's included.
    arrays: list[tuple[str, int]] = []
    for index, (_, path, _) in enumerate(mappings):
        steps = path.steps[len(row_path.steps) :] if path.steps[: len(row_path.steps)] == row_path.steps else path.steps
        if ELEMENTS in steps and steps[-1] != ELEMENTS:
            arrays.append((render(steps[: steps.index(ELEMENTS) + 1]), index))
    distinct = list(dict.fromkeys(a for a, _ in arrays))
    problem: str | None = None
    if row_path.arrays > 0 and arrays:
        first, index = arrays[0]
        problem = (f"the rows are the elements of {row_path.text} already: a column cannot flatten {first} too "
                   f"(KDA flattens one array per schema; map it to a VARCHAR as {first})")  # fmt: skip
    elif len(distinct) > 1:
        index = next(i for a, i in arrays if a == distinct[1])
        problem = (f"{distinct[1]} is a second flattened array after {distinct[0]}: KDA flattens one array per schema "
                   f"(read the other whole into a VARCHAR, as {distinct[1]})")  # fmt: skip
    if problem is not None:
        column, path, _ = mappings[index]
        at = sql.find("'" + path.text + "'")
        start = max(0, at + 1)
        return bool(report(start, start + len(path.text) - 1, describe_mapping(column, path.text), problem,
                           "flatten one array, read the others whole"))  # fmt: skip
    return True
