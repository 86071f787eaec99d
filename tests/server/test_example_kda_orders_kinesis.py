"""examples/kda-orders/kinesis/run.sh (Kinesis in, Kinesis out, against moto) prints the rows of its README."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jvm import short_lived_env
from tests.server.serverproc import free_port

pytestmark = pytest.mark.server

# boto3 and moto are test dependencies (pyproject's test extra): missing, this fails at import.
import boto3  # noqa: E402, F401
import moto  # noqa: E402, F401

RUN = Path(__file__).resolve().parents[2] / "examples" / "kda-orders" / "kinesis" / "run.sh"


def test_kda_orders_kinesis_example() -> None:
    # The script's server and beeline JVMs get the tests' short-lived JVM options (tests/jvm.py).
    env = short_lived_env(
        {
            **os.environ,
            "PYTHON": sys.executable,
            "THRIFT_PORT": str(free_port()),
            "CONNECT_PORT": str(free_port()),
            "MOTO_PORT": str(free_port()),
        }
    )
    done = subprocess.run(["bash", str(RUN)], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    fast, hourly = out.split("== fast_shipments (Kinesis records)\n", 1)[1].split(
        "== shipments_per_hour (Kinesis records)\n"
    )
    assert fast.splitlines() == [
        "2024-05-01 09:20:00.000\t1\tpen\tnorth\t2024-05-01 09:00:00.000",
        "2024-05-01 10:05:00.000\t3\tlamp\tnorth\t2024-05-01 09:10:00.000",
        "2024-05-01 10:15:00.000\t4\tnotebook\teast\t2024-05-01 09:30:00.000",
    ], out[-3000:]
    assert hourly.splitlines() == [
        "2024-05-01 10:00:00.000\tnorth\t1",
        "2024-05-01 11:00:00.000\teast\t1",
        "2024-05-01 11:00:00.000\tnorth\t1",
        "2024-05-01 11:00:00.000\tsouth\t1",
    ], out[-3000:]
