"""``overjoin server``: one JVM serving HiveServer2 Thrift (JDBC/ODBC) and Spark Connect.

The launcher prepares the state directory (log configuration, a private copy of the jar) and then
*replaces itself* with pyspark's ``spark-submit`` running ``io.overjoin.server.OverjoinServer``, so
the process that was started is the JVM: SIGTERM and SIGINT reach it directly and stop it cleanly
(pumps first, at a batch boundary). The JVM prints one line when both ports accept connections::

    overjoin server ready thrift=127.0.0.1:10000 connect=127.0.0.1:15002 ui=http://127.0.0.1:4040

(``ui=`` only while the Spark UI runs.) Everything else goes to ``<state-dir>/server.log``. See docs/server.md.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import ipaddress
import os
import shutil
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from overjoin._jar import (
    CHECKPOINT_MANAGER_CLASS,
    CHECKPOINT_MANAGER_SETTING,
    LOCAL_FILE_SYSTEM_CLASS,
    LOCAL_FILE_SYSTEM_SETTING,
    named_outside_the_builder,
)

__all__ = ["MAIN_CLASS", "TOKEN_ENV", "add_arguments", "build_command", "main"]

#: The JVM main class of the server (inside overjoin.jar).
MAIN_CLASS = "io.overjoin.server.OverjoinServer"
#: Environment variable the token may come from instead of ``--token-file``.
TOKEN_ENV = "OVERJOIN_SERVER_TOKEN"

_LOG4J = """\
# Written by `overjoin server` at every start; edit the launcher options, not this file.
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = {log}
appender.file.filePattern = {log}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yyyy-MM-dd HH:mm:ss.SSS}} %p %c{{1}}: %m%n%ex
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 50MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 5
logger.overjoin.name = io.overjoin
logger.overjoin.level = {level}
logger.thrift.name = org.apache.spark.sql.hive.thriftserver
logger.thrift.level = info
logger.hs2.name = org.apache.hive.service.server
logger.hs2.level = info
logger.connect.name = org.apache.spark.sql.connect.service
logger.connect.level = info
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``overjoin server``."""
    parser.add_argument("--state-dir", default="overjoin-state", type=Path,
                        help="catalog (Derby metastore), warehouse, checkpoints, pump definitions and "
                        "server.log (default: ./overjoin-state)")  # fmt: skip
    parser.add_argument("--host", default="127.0.0.1",
                        help="address both services listen on (default 127.0.0.1); a non-loopback "
                        "address needs --token-file")  # fmt: skip
    parser.add_argument("--thrift-port", type=int, default=10000, help="HiveServer2 Thrift port (default 10000)")
    parser.add_argument("--connect-port", type=int, default=15002, help="Spark Connect port (default 15002)")
    parser.add_argument("--token-file", type=Path,
                        help=f"file holding a shared secret: JDBC clients give it as the password, "
                        f"Connect clients as token= (or set {TOKEN_ENV})")  # fmt: skip
    parser.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    parser.add_argument("--driver-memory", default="1g", help="JVM heap (default 1g)")
    parser.add_argument("--trigger-ms", type=int, default=1000, help="pumps' micro-batch interval in ms (default 1000)")
    parser.add_argument("--grace-ms", type=int, default=10000,
                        help="on stop, how long to wait for a pump's running batch to finish (default 10000)")  # fmt: skip
    parser.add_argument(
        "--ui-port",
        type=int,
        default=4040,
        help="port of the Spark UI, on 127.0.0.1 whatever --host says (default 4040; the next free one if taken)",
    )
    parser.add_argument(
        "--no-ui",
        action="store_true",
        help="do not run the Spark UI (it has no authentication, so it never leaves loopback)",
    )
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra Spark setting (repeatable)")  # fmt: skip
    parser.add_argument("--jars", action="append", default=[], metavar="JARS",
                        help="comma-separated jars for the server's Spark (connectors of CREATE STREAM ... WITH "
                        "(format = ...)); passed to spark-submit --jars (repeatable)")  # fmt: skip
    parser.add_argument("--packages", action="append", default=[], metavar="COORDS",
                        help="comma-separated Maven coordinates, e.g. org.apache.spark:spark-sql-kafka-0-10_2.13:4.3.0 "
                        "for format = 'kafka'; passed to spark-submit --packages (repeatable)")  # fmt: skip
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warn", "error"),
                        help="level of overjoin's own log lines in server.log (default info)")  # fmt: skip
    parser.add_argument("--dry-run", action="store_true", help="print the spark-submit command instead of running it")


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host, None))
        except OSError:
            return False


def _pyspark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _private_jar(state: Path) -> Path:
    """A copy of overjoin.jar under the state dir, named by its content: rebuilding the package's
    jar while a server runs must not change the classes under the running JVM."""
    from overjoin._jar import jar_path

    source = Path(jar_path())
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    lib = state / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    target = lib / f"overjoin-{digest}.jar"
    if not target.exists():
        tmp = lib / f".{target.name}.tmp"
        shutil.copyfile(source, tmp)
        tmp.replace(target)
    for old in lib.glob("overjoin-*.jar"):
        if old != target:
            with contextlib.suppress(OSError):
                old.unlink()
    return target


def build_command(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The spark-submit command line and environment for ``args`` (state dir prepared)."""
    state = args.state_dir.resolve()
    state.mkdir(parents=True, exist_ok=True)
    log4j = state / "log4j2.properties"
    log4j.write_text(_LOG4J.format(log=state / "server.log", level=args.log_level), encoding="utf-8")
    jar = _private_jar(state)
    home = _pyspark_home()
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -Dderby.stream.error.file={state / 'derby.log'}"
    cmd = [
        str(home / "bin" / "spark-submit"),
        "--master",
        args.master,
        "--driver-memory",
        args.driver_memory,
        # The class path, not only spark.jars: HiveServer2 closes a session's class loaders when
        # the session closes, and a jar loaded through them then stops loading classes.
        "--driver-class-path",
        str(jar),
        "--driver-java-options",
        java_opts,
        # The Spark UI (pumps are on its Structured Streaming tab, by name) binds to SPARK_LOCAL_IP,
        # set to 127.0.0.1 below: it has no authentication, so it never follows --host.
        "--conf",
        f"spark.ui.enabled={'false' if args.no_ui else 'true'}",
        "--conf",
        f"spark.ui.port={args.ui_port}",
        # The driver's own RPC and block manager stay on loopback whatever --host says.
        "--conf",
        "spark.driver.bindAddress=127.0.0.1",
        "--conf",
        "spark.driver.host=127.0.0.1",
    ]

    # Defaults the user's own setting overrides: a --conf, or spark-defaults.conf.
    def user_sets(key: str) -> bool:
        return any(kv.split("=", 1)[0].strip() == key for kv in args.conf) or named_outside_the_builder(key)

    # Pumps' checkpoints without a process forked per file (overjoin._jar).
    if not user_sets(CHECKPOINT_MANAGER_SETTING):
        cmd += ["--conf", f"{CHECKPOINT_MANAGER_SETTING}={CHECKPOINT_MANAGER_CLASS}"]
    # Sink files (pumps' rows) without a chmod process per file and per checksum, on a local
    # master, where the jar on the driver's class path is every executor's (a cluster's executors
    # load it later than Hadoop's file systems are made).
    if args.master.startswith("local") and not user_sets(LOCAL_FILE_SYSTEM_SETTING):
        cmd += ["--conf", f"{LOCAL_FILE_SYSTEM_SETTING}={LOCAL_FILE_SYSTEM_CLASS}"]
    for kv in args.conf:
        cmd += ["--conf", kv]
    if getattr(args, "jars", None):
        cmd += ["--jars", ",".join(args.jars)]
    if getattr(args, "packages", None):
        cmd += ["--packages", ",".join(args.packages)]
    cmd += [
        "--class",
        MAIN_CLASS,
        str(jar),
        "--state-dir",
        str(state),
        "--host",
        args.host,
        "--thrift-port",
        str(args.thrift_port),
        "--connect-port",
        str(args.connect_port),
        "--trigger-ms",
        str(args.trigger_ms),
        "--grace-ms",
        str(args.grace_ms),
    ]
    if args.token_file is not None:
        cmd += ["--token-file", str(args.token_file.resolve())]
    env = dict(os.environ)
    env["SPARK_HOME"] = str(home)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    # Python data sources (format = 'kinesis': the pyspark_overjoin_kinesis package) run in Python
    # workers of the JVM: this Python, which has overjoin and its dependencies, unless set.
    if "PYSPARK_PYTHON" not in env:
        env["PYSPARK_PYTHON"] = str(_python_worker(state))
    return cmd, env


_PYTHON_WORKER = """\
#!/bin/sh
# Written by `overjoin server` at every start: the Python of its workers (PYSPARK_PYTHON).
# Spark puts its own copy of pyspark (a zip, compiled at every import) first on a worker's
# PYTHONPATH; this Python has the same pyspark installed and compiled, which starts several times
# faster. Spark waits only 10 seconds for a worker, so on a busy machine this matters.
PYTHONPATH=$(printf '%s' "$PYTHONPATH" | tr ':' '\\n' | grep -v '/pyspark[.]zip$' | paste -sd: -)
export PYTHONPATH
exec {python} "$@"
"""


def _python_worker(state: Path) -> Path:
    """The script named by the server's PYSPARK_PYTHON: this Python, without Spark's pyspark.zip."""
    import shlex

    script = state / "python-worker"
    script.write_text(_PYTHON_WORKER.format(python=shlex.quote(sys.executable)), encoding="utf-8")
    script.chmod(0o755)
    return script


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``overjoin server`` (never returns when the server starts: the process becomes the JVM)."""
    parser = argparse.ArgumentParser(prog="overjoin server", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    for name in ("thrift_port", "connect_port", "ui_port"):
        port = getattr(args, name)
        if not 1 <= port <= 65535:
            print(f"overjoin server: --{name.replace('_', '-')} must be 1-65535", file=sys.stderr)
            return 2
    if args.thrift_port == args.connect_port:
        print("overjoin server: --thrift-port and --connect-port must differ", file=sys.stderr)
        return 2
    if args.token_file is not None and not args.token_file.is_file():
        print(f"overjoin server: cannot read the token file {args.token_file}", file=sys.stderr)
        return 2
    has_token = args.token_file is not None or bool(os.environ.get(TOKEN_ENV, "").strip())
    if not _is_loopback(args.host) and not has_token:
        print(f"overjoin server: refusing to listen on {args.host} without authentication: give "
              f"--token-file (or set {TOKEN_ENV}), or use a loopback host such as 127.0.0.1",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        cmd, env = build_command(args)
    except FileNotFoundError as error:
        print(f"overjoin server: {error}", file=sys.stderr)
        return 1
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    sys.stdout.flush()
    sys.stderr.flush()
    # A process started in the background by a non-interactive shell has SIGINT ignored, and an
    # ignored signal stays ignored across exec: give the JVM the default dispositions.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    os.execve(cmd[0], cmd, env)
    return 1  # pragma: no cover - execve does not return


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
