"""The SQL script ``overjoin server`` runs for imported KDA applications.

For each application, in this order (docs/server.md, "Importing a KDA application"):

1. its input streams, ``CREATE OR REPLACE STREAM "<prefix>_00k" (...columns MAPPING '...') WITH
   (format = 'kinesis' | 'firehose', ...)``, one per in-application stream (``shard_group = 'k of n'``
   shares the shards as KDA's ``InputParallelism`` did), with the input schema and preprocessor;
2. its reference tables, ``CREATE OR REPLACE REFERENCE TABLE``;
3. its code, as written (its intrinsics resolved, nothing else changed);
4. for each output, a stream over the destination (``format = 'kinesis' | 'firehose' | 'lambda'``,
   with the in-application stream's columns and the output's record format) and a pump that sends
   the in-application stream to it; outputs of ``error_stream`` last.

Several applications go into one script, each in a schema of its own (``CREATE OR REPLACE SCHEMA`` and
``SET SCHEMA``), as each KDA application had its own names and its own ``error_stream``; one
application uses the session's current schema. Statements end with ``;`` and no comment holds one,
so the script splits at its semicolons. What could not be mapped is written as comments, marked
``NOT MAPPED``, next to where it would go.
"""

from __future__ import annotations

import re

from overjoin.importer.model import KIND_NAMES, Application, Input, Note, Problem, Resource, Schema

__all__ = ["ERROR_STREAM_COLUMNS", "code_streams", "write_script"]

#: KDA's error_stream columns (its developer guide, "Error Handling").
ERROR_STREAM_COLUMNS = (
    '"ERROR_TIME" TIMESTAMP, "ERROR_LEVEL" VARCHAR(10), "ERROR_NAME" VARCHAR(32), "MESSAGE" VARCHAR(4096), '
    '"DATA_ROWTIME" TIMESTAMP, "DATA_ROW" VARCHAR(49152), "PUMP_NAME" VARCHAR(128)'
)

_FORMAT = {"kinesis": "kinesis", "firehose": "firehose", "lambda": "lambda"}
_OPTION = {"kinesis": "stream", "firehose": "delivery_stream", "lambda": "function"}
_START = {"NOW": "LATEST", "TRIM_HORIZON": "TRIM_HORIZON", "LAST_STOPPED_POINT": "TRIM_HORIZON"}


def ident(name: str) -> str:
    """A name as KDA quotes it."""
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    """A SQL string literal: a quote doubled, a backslash and control characters escaped as the
    server's stream statements read them (``'\\n'`` is a newline)."""
    out = value.replace("\\", "\\\\").replace("'", "''").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return "'" + out + "'"


def _comment(text: str) -> str:
    """Text as comment lines (a semicolon would split the script there: it becomes a comma)."""
    return "\n".join("-- " + line.replace(";", ",") if line else "--" for line in text.splitlines())


def _columns(schema: Schema) -> str:
    json_records = schema.format.kind == "JSON"
    lines = []
    for c in schema.columns:
        mapping = f" MAPPING {literal(c.mapping)}" if json_records and c.mapping else ""
        lines.append(f"    {ident(c.name)} {c.sql_type}{mapping}")
    return "(\n" + ",\n".join(lines) + "\n)"


def _record_options(schema: Schema) -> list[tuple[str, str]]:
    f = schema.format
    if f.kind == "CSV":
        return [("record_format", "csv"), ("record_row_delimiter", f.row_delimiter or "\n"),
                ("record_column_delimiter", f.column_delimiter or ",")]  # fmt: skip
    return [("record_format", "json"), ("record_row_path", f.row_path or "$")]


def _with(options: list[tuple[str, str]]) -> str:
    return "WITH (" + ", ".join(f"{k} = {literal(v)}" for k, v in options) + ")"


def _statement(sql: str, unresolved: list[Resource], problems: list[Problem], where: str) -> str:
    """The statement, or the statement commented out when a resource it needs has no name (each
    such resource a problem, once)."""
    if not unresolved:
        return sql + ";"
    for r in unresolved:
        what = f"cannot tell which {KIND_NAMES[r.kind]} {r.written} is"
        fix = (f"name it: --resource {r.key}=<name>" if r.key
               else "write its name or ARN in the definition, or name it with --resource")  # fmt: skip
        if not any(p.what == what for p in problems):
            problems.append(Problem(where, what, fix))
    names = ", ".join(r.describe() for r in unresolved)
    return _comment(f"NOT MAPPED: {names} has no name (see the problems on stderr)\n{sql}")


def code_streams(code: str) -> dict[str, str]:
    """The in-application streams the code creates: name -> its column list as written."""
    out: dict[str, str] = {}
    pattern = re.compile(r'CREATE\s+(?:OR\s+REPLACE\s+)?STREAM\s+("(?:[^"]|"")+"|[A-Za-z_][\w$]*)\s*\(', re.IGNORECASE)
    masked = _masked(code)
    for m in pattern.finditer(masked):
        depth, i = 1, m.end()
        while i < len(masked) and depth:
            depth += {"(": 1, ")": -1}.get(masked[i], 0)
            i += 1
        name = m.group(1)
        name = name[1:-1].replace('""', '"') if name.startswith('"') else name.upper()
        out[name] = code[m.end() : i - 1].strip()
    return out


def _masked(code: str) -> str:
    """`code` with its comments and string literals blanked (same length), for finding statements."""
    out = list(code)
    i = 0
    while i < len(code):
        if code.startswith("--", i):
            j = code.find("\n", i)
            j = len(code) if j < 0 else j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = len(code) if j < 0 else j + 2
        elif code[i] == "'":
            j = i + 1
            while j < len(code) and not (code[j] == "'" and not code.startswith("''", j)):
                j += 2 if code.startswith("''", j) else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, len(code))):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _ends_with_semicolon(code: str) -> bool:
    return _masked(code).rstrip().endswith(";")


def _schema_name(app: Application) -> str:
    return re.sub(r"\W", "_", app.name).strip("_").lower() or "application"


def _application_arn(app: Application) -> str:
    region, account = "us-east-1", "000000000000"
    for r in [i.source for i in app.inputs] + [o.destination for o in app.outputs]:
        if r.region:
            region = r.region
            break
    return f"arn:aws:kinesisanalytics:{region}:{account}:application/{app.name}"


def _inputs(app: Application, out: list[str]) -> None:
    for inp in app.inputs:
        out.append(_comment(_describe_input(inp)))
        for note in _input_notes(app, inp):
            app.notes.append(note)
            out.append(_comment(f"Note: {note.text}"))
        for k, name in enumerate(inp.stream_names, start=1):
            kind = inp.source.kind
            options = [("format", _FORMAT[kind]), (_OPTION[kind], inp.source.name or "?"), *_record_options(inp.schema)]
            if inp.source.region:
                options.append(("region", inp.source.region))
            if inp.parallelism > 1:
                options.append(("shard_group", f"{k} of {inp.parallelism}"))
            if inp.starting_position and inp.starting_position.upper() in _START:
                options.append(("starting_position", _START[inp.starting_position.upper()]))
            unresolved = [r for r in (inp.source, inp.preprocessor) if r is not None and r.name is None]
            if inp.preprocessor is not None:
                options += [("preprocessor", inp.preprocessor.name or "?"), ("application_arn", _application_arn(app))]
            sql = f"CREATE OR REPLACE STREAM {ident(name)} {_columns(inp.schema)}\n  {_with(options)}"
            out.append(_statement(sql, unresolved, app.problems, app.origin))


def _describe_input(inp: Input) -> str:
    streams = ", ".join(inp.stream_names)
    f = inp.schema.format
    records = f"JSON records, rows at {f.row_path or '$'}" if f.kind == "JSON" else "CSV records"
    text = f"Input: {inp.source.describe()} read into {streams} ({records})"
    if inp.parallelism > 1:
        text += f", its shards shared among {inp.parallelism} in-application streams"
    if inp.preprocessor is not None:
        text += f", each record first through the preprocessor {inp.preprocessor.describe()}"
    return text


def _input_notes(app: Application, inp: Input) -> list[Note]:
    notes = []
    if inp.source.kind == "firehose":
        notes.append(Note(app.origin, (
            f"KDA read {inp.source.describe()} directly, which no public AWS API does. overjoin reads what it carries: "
            "its Kinesis data stream source when it has one (record for record), else the objects it delivers to S3 "
            "(rows then come with the delivery stream's buffering). See docs/server.md, Firehose inputs."
        )))  # fmt: skip
    if (inp.starting_position or "").upper() == "LAST_STOPPED_POINT":
        notes.append(Note(app.origin, "LAST_STOPPED_POINT: a new pump has no last point, so it reads from the "
                          "oldest record kept (TRIM_HORIZON), and after that from its own checkpoint"))  # fmt: skip
    return notes


def _references(app: Application, out: list[str]) -> None:
    for ref in app.references:
        where = f"s3://{ref.bucket.name or '?'}/{ref.file_key}"
        out.append(_comment(f"Reference data: {where} loaded into {ident(ref.table_name)}"))
        options = [("bucket", ref.bucket.name or "?"), ("key", ref.file_key), *_record_options(ref.schema)]
        sql = f"CREATE OR REPLACE REFERENCE TABLE {ident(ref.table_name)} {_columns(ref.schema)}\n  {_with(options)}"
        unresolved = [ref.bucket] if ref.bucket.name is None else []
        out.append(_statement(sql, unresolved, app.problems, app.origin))


def _outputs(app: Application, out: list[str]) -> None:
    streams = code_streams(app.code)
    lower = {k.lower(): v for k, v in streams.items()}
    ordered = [o for o in app.outputs if o.name.lower() != "error_stream"] + [
        o for o in app.outputs if o.name.lower() == "error_stream"
    ]
    used: dict[str, int] = {}
    for o in ordered:
        kind = o.destination.kind
        columns = (
            ERROR_STREAM_COLUMNS if o.name.lower() == "error_stream" else streams.get(o.name, lower.get(o.name.lower()))
        )
        out.append(_comment(
            f"Output: in-application stream {ident(o.name)} sent to {o.destination.describe()} as {o.record_format}"
        ))  # fmt: skip
        if columns is None:
            problem = Problem(app.origin, f"the output sends the in-application stream {o.name!r}, which the "
                              "application code does not create", "create it in the code (CREATE OR REPLACE STREAM), "
                              "or fix the output's Name")  # fmt: skip
            app.problems.append(problem)
            out.append(_comment(f"NOT MAPPED: {problem.what}"))
            continue
        suffix = kind.upper()
        used[f"{o.name}:{suffix}"] = used.get(f"{o.name}:{suffix}", 0) + 1
        n = used[f"{o.name}:{suffix}"]
        target = f"{o.name}__{suffix}" + (f"_{n}" if n > 1 else "")
        pump = f"{o.name}__TO_{suffix}" + (f"_{n}" if n > 1 else "")
        options = [("format", _FORMAT[kind]), (_OPTION[kind], o.destination.name or "?"),
                   ("record_format", o.record_format.lower())]  # fmt: skip
        if o.destination.region:
            options.append(("region", o.destination.region))
        if kind == "lambda":
            options.append(("application_arn", _application_arn(app)))
        unresolved = [o.destination] if o.destination.name is None else []
        out.append(_statement(f"CREATE OR REPLACE STREAM {ident(target)} ({columns})\n  {_with(options)}",
                              unresolved, app.problems, app.origin))  # fmt: skip
        sql = f"CREATE OR REPLACE PUMP {ident(pump)} AS INSERT INTO {ident(target)}\n"
        sql += f"  SELECT STREAM * FROM {ident(o.name)}"
        out.append(_statement(sql, unresolved, app.problems, app.origin))


def write_script(apps: list[Application], source: str) -> str:
    """The script for `apps`, read from `source` (for its header)."""
    plural = "s" if len(apps) != 1 else ""
    out: list[str] = [_comment(
        f"Kinesis Data Analytics application{plural} imported from {source} by overjoin import.\n"
        "Run it in overjoin server (beeline -f, or any SQL client): docs/server.md, Importing a KDA application."
    )]  # fmt: skip
    for app in apps:
        out.append("")
        header = f"Application {app.name!r} ({app.origin})"
        if app.description:
            header += f": {app.description}"
        out.append(_comment(header))
        if len(apps) > 1:
            schema = _schema_name(app)
            out.append(f"CREATE OR REPLACE SCHEMA {ident(schema)};")
            out.append(f"SET SCHEMA '{ident(schema)}';")
        _inputs(app, out)
        _references(app, out)
        out.append(_comment("Application code, as written:"))
        code = app.code.rstrip("\n")
        out.append(code + ("" if _ends_with_semicolon(code) or not code.strip() else "\n;"))
        _outputs(app, out)
        for p in app.problems:
            out.append(_comment(f"NOT MAPPED: {p.line()}"))
    return "\n".join(out) + "\n"


def kinds() -> dict[str, str]:
    return dict(KIND_NAMES)
