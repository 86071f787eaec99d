"""Start and stop `overjoin server` for tests: loopback only, free ports, stopped by PID."""

from __future__ import annotations

import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyspark

from tests.jvm import short_lived_env
from tests.ports import free_port

READY_TIMEOUT = 300.0
BEELINE = Path(pyspark.__file__).resolve().parent / "bin" / "beeline"


class _PortTaken(Exception):
    """The server exited before its ready line because a port it was given was taken."""


@dataclass
class Server:
    state_dir: Path
    thrift_port: int = field(default_factory=free_port)
    connect_port: int = field(default_factory=free_port)
    ui_port: int = field(default_factory=free_port)
    extra: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    proc: subprocess.Popen | None = None
    ready_line: str = ""

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "overjoin", "server",
            "--state-dir", str(self.state_dir),
            "--thrift-port", str(self.thrift_port),
            "--connect-port", str(self.connect_port),
            "--ui-port", str(self.ui_port),
            "--conf", "spark.sql.session.timeZone=UTC",
            "--conf", "spark.sql.shuffle.partitions=2",
            *self.extra,
        ]  # fmt: skip

    def start(self) -> Server:
        """Starts the server and waits for its ready line (failing with its stderr if it dies).

        A server that dies because one of its ports was taken in the meantime (tests/ports.py) is
        started again on new ports, twice at most; any other early exit fails at once."""
        for attempt in range(3):
            try:
                return self._start_once()
            except _PortTaken:
                if attempt == 2:
                    raise AssertionError(f"ports taken three times: {self.stderr()}") from None
                self.thrift_port, self.connect_port, self.ui_port = free_port(), free_port(), free_port()
        raise AssertionError("unreachable")

    def _start_once(self) -> Server:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        log = self.state_dir / "launcher.stderr"
        before = log.stat().st_size if log.exists() else 0
        err = open(log, "ab")
        # The server's JVM gets the options of the tests' short-lived JVMs (tests/jvm.py).
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=err,
                                     env=short_lived_env(self.env), start_new_session=True)  # fmt: skip
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + READY_TIMEOUT
        buf = b""
        while b"\n" not in buf:
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"no ready line in {READY_TIMEOUT}s: {self.stderr()}")
            if sel.select(timeout=1.0):
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    code = self.proc.wait()
                    with open(log, "rb") as f:
                        f.seek(before)
                        this_start = f.read().decode(errors="replace")
                    if "BindException" in this_start or "Address already in use" in this_start:
                        raise _PortTaken()
                    raise AssertionError(f"server exited ({code}) before ready: {self.stderr()}")
                buf += chunk
        self.ready_line = buf.split(b"\n", 1)[0].decode()
        return self

    def stderr(self) -> str:
        try:
            return (self.state_dir / "launcher.stderr").read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self, timeout: float = 120.0) -> int:
        """SIGTERM to the server's PID, then wait; SIGKILL if it does not exit in time."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        os.kill(self.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the server did not stop within {timeout}s of SIGTERM") from None

    def kill(self) -> None:
        """kill -9 of the server's PID."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.proc.wait(60)

    # ---- clients ----

    def hive(self, **kw):  # type: ignore[no-untyped-def]
        from pyhive import hive

        return hive.connect(host="127.0.0.1", port=self.thrift_port, username="test", **kw)

    def query(self, sql: str) -> list[tuple]:
        """One PyHive session: run `sql`, return its rows (none for a statement)."""
        conn = self.hive()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            rows = cur.fetchall() if cur.description else []
            cur.close()
            return [tuple(r) for r in rows]
        finally:
            conn.close()

    def ids(self, stream: str) -> list[int]:
        """The ``id`` column of every row of ``stream``, in order: what a test counts rows by."""
        return [r[0] for r in self.query(f"SELECT id FROM {stream} ORDER BY id")]

    def settled(self, pump: str) -> tuple | None:
        """SHOW PUMPS' row of ``pump`` once it runs and is idle: its last trigger found no new record
        and no batch is in flight, so a later batch would add nothing. Waited for before a test counts
        what a pump wrote, to see any record it would write twice."""
        p = {r[0]: r for r in self.query("SHOW PUMPS")}[pump]
        return p if p[1] == "RUNNING" and p[3] is True else None

    def execute(self, *statements: str) -> None:
        conn = self.hive()
        try:
            cur = conn.cursor()
            for s in statements:
                cur.execute(s)
            cur.close()
        finally:
            conn.close()

    def beeline(self, sql_file: Path, *extra: str) -> subprocess.CompletedProcess:
        cmd = [str(BEELINE), "-u", f"jdbc:hive2://127.0.0.1:{self.thrift_port}/default",
               "--silent=true", "--showHeader=false", "--outputformat=tsv2", *extra, "-f", str(sql_file)]  # fmt: skip
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
                              env=short_lived_env())  # fmt: skip


def beeline_rows(stdout: str) -> list[str]:
    """Result lines of a quiet beeline run. Without a terminal, beeline prints `null` (and spaces)
    where its prompt would go, sometimes glued to the next result line: those are removed."""
    lines = (re.sub(r"^(null\s*)+", "", line) for line in stdout.splitlines())
    return [line for line in lines if line.strip()]


def wait_until(check, timeout: float = 120.0, every: float = 0.2, what: str = "condition"):  # type: ignore[no-untyped-def]
    """Calls ``check`` every ``every`` seconds until it returns something true (returned), failing
    after ``timeout``. Most checks are a query to the server (a fraction of a second of its CPU):
    polling every 0.2 s rather than every second saves about 0.4 s per wait, a few of them per test."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}; last value: {last!r}")


def listening_addresses(pid: int, port: int) -> set[str]:
    """Local addresses the process listens on for `port`, from /proc/<pid>/net/tcp{,6}."""
    found = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, state = parts[1], parts[3]
            addr, p = local.split(":")
            if int(p, 16) != port or state != "0A":  # 0A = LISTEN
                continue
            raw = bytes.fromhex(addr)
            if name == "tcp":
                found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
            else:
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found
