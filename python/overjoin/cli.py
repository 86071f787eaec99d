"""The ``overjoin`` command line: ``check``, ``explain``, ``import``, ``jar``, ``demo`` and ``server``.

``overjoin check`` runs the pure-Python validator (no JVM, no Spark session) and prints
compiler-style diagnostics, so it fits editors and CI; ``explain`` shows what a query becomes;
``import`` prints the SQL script that runs a Kinesis Data Analytics application from its definition
(CloudFormation, Terraform, API JSON); ``jar`` prints the extension jar's path (for ``spark-submit
--jars``); ``demo`` runs the demo;
``server`` starts the Thrift/JDBC and Spark Connect server (docs/server.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

__all__ = ["build_parser", "main"]

_CHECK_EPILOG = """\
exit status: 0 when no file has an error (warnings do not count), 1 when one has, 2 on bad usage
or an unreadable file.

examples:
  overjoin check queries/*.sql
  cat query.sql | overjoin check -
  overjoin check --schemas schemas.json --format json query.sql

schemas.json maps table names to their columns and Spark types:
  {"Orders": {"orderId": "int", "rowtime": "timestamp"}, "Shipments": {...}}
"""

_EXPLAIN_EPILOG = """\
examples:
  overjoin explain "SELECT STREAM ROWTIME, o.orderId FROM Shipments AS s
                    JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId"
  overjoin explain query.sql
"""


_IMPORT_EPILOG = """\
exit status: 0 when the script holds every part of every application; 1 when something could not be
mapped (the script is still printed, with that part as comments, and stderr says what to do); 2 on
bad usage or a file that is not a definition.

examples:
  overjoin import app.yaml --resource OrdersStream=orders > app.sql
  overjoin import infra/ --var-file prod.tfvars -o app.sql
  aws kinesisanalytics describe-application --application-name orders > app.json && overjoin import app.json
  beeline -u jdbc:hive2://127.0.0.1:10000/default -f app.sql
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``overjoin`` command, with one sub-parser per subcommand."""
    parser = argparse.ArgumentParser(
        prog="overjoin",
        description="Streaming-SQL windowed joins on Apache Spark: validate and explain queries, "
        "locate the extension jar, run the demo.",
    )
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")
    subs.required = True

    check = subs.add_parser(
        "check",
        help="validate SQL files without starting Spark",
        description="Validate overjoin SQL (and plain Spark SQL) with the pure-Python validator and "
        "print one compiler-style diagnostic per problem: path:line:col: error[CODE]: message, "
        "the source line with a caret under the offending text, and a hint.",
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="SQL files to check; - reads standard input")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="text (default) or json: a list of {path, line, column, ...} objects")  # fmt: skip
    check.add_argument("--schemas", metavar="SCHEMAS.JSON", type=Path,
                       help="JSON file mapping table names to {column: Spark type}; enables the "
                       "column and rowtime checks")  # fmt: skip
    check.add_argument("--double-quoted-identifiers", action="store_true",
                       help='read "x" as an identifier, not a string (s-Server style queries; '
                       "Spark's spark.sql.ansi.doubleQuotedIdentifiers)")  # fmt: skip
    check.set_defaults(func=_cmd_check)

    explain = subs.add_parser(
        "explain",
        help="show the Spark SQL a query becomes and what each input does",
        description="Print the plain Spark SQL an overjoin query becomes and, for each join input, "
        "its window, life interval, how long its rows stay in state and when its null-padded "
        "rows appear.",
        epilog=_EXPLAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("query", metavar="SQL|FILE", help="the query text, a file holding it, or - for standard input")
    explain.add_argument("--double-quoted-identifiers", action="store_true",
                         help='read "x" as an identifier, not a string')  # fmt: skip
    explain.set_defaults(func=_cmd_explain)

    imp = subs.add_parser(
        "import",
        help="print the SQL script that runs a KDA application from its definition",
        description="Read a Kinesis Data Analytics SQL application's definition (a CloudFormation template in "
        "YAML or JSON, cdk synth output included; Terraform, a .tf file or a folder; the Kinesis Analytics API's "
        "JSON: a DescribeApplication response or a CreateApplication request) and print one SQL script that "
        "overjoin server runs as it is: the input streams with their schemas, the reference tables, the "
        "application code as written, and what sends each output to its destination. What cannot be mapped "
        "is left in the script as comments and named on stderr.",
        epilog=_IMPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    imp.add_argument("path", metavar="PATH", type=Path, help="a template, a .tf file or folder, or API JSON")
    imp.add_argument("--parameter", action="append", default=[], metavar="NAME=VALUE",
                     help="a CloudFormation parameter or Terraform variable (also AWS::Region, AWS::AccountId, "
                     "AWS::StackName); repeatable")  # fmt: skip
    imp.add_argument("--resource", action="append", default=[], metavar="ID=NAME",
                     help="the name of a stream, delivery stream, function or bucket the definition refers to: ID "
                     "is a CloudFormation logical ID or export name, or a Terraform address "
                     "(aws_kinesis_stream.clicks); repeatable")  # fmt: skip
    imp.add_argument("--var-file", action="append", default=[], type=Path, metavar="FILE",
                     help="a Terraform .tfvars file (read after terraform.tfvars, *.auto.tfvars); "
                     "repeatable")  # fmt: skip
    imp.add_argument("-o", "--output", type=Path, metavar="FILE", help="write the script to FILE (default: stdout)")
    imp.set_defaults(func=_cmd_import)

    jar = subs.add_parser("jar", help="print the path of overjoin's extension jar",
                          description="Print the absolute path of the extension jar, for "
                          "spark-submit --jars or spark.jars.")  # fmt: skip
    jar.set_defaults(func=_cmd_jar)

    demo = subs.add_parser("demo", help="run the demo (what `make demo` runs)", add_help=False,
                           description="Run overjoin's demo; arguments are passed to it "
                           "(try `overjoin demo --help`).")  # fmt: skip
    demo.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the demo")
    demo.set_defaults(func=_cmd_demo)

    from overjoin.server import add_arguments as _server_arguments

    server = subs.add_parser(
        "server",
        help="serve SQL over Thrift/JDBC and Spark Connect, with streams and pumps",
        description="Start one JVM serving HiveServer2 Thrift (beeline, JDBC, PyHive) and Spark "
        "Connect with overjoin loaded; it owns the pumps (CREATE PUMP) and keeps its state in "
        "--state-dir. Prints `overjoin server ready thrift=HOST:PORT connect=HOST:PORT ui=URL` "
        "when both ports accept connections (the Spark UI, on 127.0.0.1, unless --no-ui); "
        "stops cleanly on SIGTERM or SIGINT. See docs/server.md.",
    )
    _server_arguments(server)
    server.set_defaults(func=_cmd_server)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``overjoin`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if args_list and args_list[0] == "demo":
        # Everything after `demo` belongs to the demo, including --help.
        return _run_demo(args_list[1:])
    args = parser.parse_args(args_list)
    return int(args.func(args))


# ---- check ----------------------------------------------------------------------------------


def _cmd_check(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from overjoin.validator import Diagnostic, validate

    out = out or sys.stdout
    err = err or sys.stderr
    schemas = _load_schemas(args.schemas, err) if args.schemas else None
    if args.schemas and schemas is None:
        return 2
    found: list[tuple[str, str, Diagnostic]] = []
    status = 0
    for path in args.files:
        source = _read(path, err)
        if source is None:
            status = 2
            continue
        name = "<stdin>" if path == "-" else path
        for diagnostic in validate(source, schemas, double_quoted_identifiers=args.double_quoted_identifiers):
            found.append((name, source, diagnostic))
    if args.format == "json":
        items = [{"path": name, **d.to_dict()} for name, _, d in found]
        out.write(json.dumps(items, indent=2) + "\n")
    else:
        for name, source, diagnostic in found:
            out.write(diagnostic.render(source, name) + "\n")
        errors = sum(d.severity == "error" for _, _, d in found)
        if found:
            out.write(f"{errors} error(s), {len(found) - errors} warning(s)\n")
    if any(d.severity == "error" for _, _, d in found):
        status = max(status, 1)
    return status


def _read(path: str, err: TextIO) -> str | None:
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        err.write(f"overjoin: cannot read {path}: {error.strerror or error}\n")
        return None


def _load_schemas(path: Path, err: TextIO) -> dict[str, dict[str, str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        err.write(f"overjoin: cannot read schemas from {path}: {error}\n")
        return None
    if not isinstance(data, dict) or not all(
        isinstance(cols, dict) and all(isinstance(v, str) for v in cols.values()) for cols in data.values()
    ):
        err.write(f"overjoin: {path} must map table names to {{column: type}} objects\n")
        return None
    return data


# ---- import ---------------------------------------------------------------------------------


def _pairs(values: list[str], option: str, err: TextIO) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key.strip():
            err.write(f"overjoin import: {option} {v!r}: write {option} NAME=VALUE\n")
            return None
        out[key.strip()] = value
    return out


def _cmd_import(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from overjoin.importer import Bindings, import_definition

    out = out or sys.stdout
    err = err or sys.stderr
    parameters = _pairs(args.parameter, "--parameter", err)
    resources = _pairs(args.resource, "--resource", err)
    if parameters is None or resources is None:
        return 2
    try:
        result = import_definition(args.path, Bindings(parameters, resources), args.var_file)
    except ValueError as error:
        err.write(f"overjoin import: {error}\n")
        return 2
    if args.output:
        args.output.write_text(result.script, encoding="utf-8")
    else:
        out.write(result.script)
    for line in result.messages():
        err.write(f"overjoin import: {line}\n")
    if not result.complete:
        err.write(f"overjoin import: the script is not complete: {len(result.problems)} part(s) of the definition "
                  "are not mapped (see above)\n")  # fmt: skip
        return 1
    return 0


# ---- explain, jar, demo -----------------------------------------------------------------------


def _cmd_explain(args: argparse.Namespace) -> int:
    from overjoin.explain import explain, format_explanations

    query = args.query
    if query == "-":
        query = sys.stdin.read()
    elif "\n" not in query and len(query) < 4096 and Path(query).is_file():
        query = Path(query).read_text(encoding="utf-8")
    explanations = explain(query, double_quoted_identifiers=args.double_quoted_identifiers)
    sys.stdout.write(format_explanations(explanations))
    return 1 if any(e.diagnostics for e in explanations) else 0


def _cmd_jar(args: argparse.Namespace) -> int:
    from overjoin._jar import jar_path

    try:
        print(jar_path())
    except FileNotFoundError as error:
        print(f"overjoin: {error}", file=sys.stderr)
        return 1
    return 0


def _cmd_server(args: argparse.Namespace) -> int:
    from overjoin.server import run

    return run(args)


def _cmd_demo(args: argparse.Namespace) -> int:
    return _run_demo(list(args.args))


def _run_demo(argv: list[str]) -> int:
    # The demo starts Spark: import it only when asked for.
    from overjoin import demo

    result = demo.main(argv)
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
