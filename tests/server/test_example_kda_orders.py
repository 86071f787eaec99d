"""examples/kda-orders/run.sh prints the rows its README shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jvm import short_lived_env
from tests.server.serverproc import free_port

pytestmark = pytest.mark.server

RUN = Path(__file__).resolve().parents[2] / "examples" / "kda-orders" / "run.sh"


def test_kda_orders_example() -> None:
    # The script's server and beeline JVMs get the tests' short-lived JVM options (tests/jvm.py).
    env = short_lived_env(
        {**os.environ, "PYTHON": sys.executable, "THRIFT_PORT": str(free_port()), "CONNECT_PORT": str(free_port())}
    )
    done = subprocess.run(["bash", str(RUN)], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    # The server runs with its defaults here: a pump's shuffle partitions are its cores (local[2]),
    # not Spark's 200, and once it has run, its checkpoint fixes the count.
    partitions = out.split("== the windowed join's shuffle partitions", 1)[1].split("\n== ", 1)[0]
    assert partitions.splitlines()[1:] == [
        "shuffle_partitions\t2",
        "shuffle_partitions_from\tthe pump's checkpoint (fixed for its life)",
    ], partitions
    fast = out.split("== fast_shipments\n", 1)[1].split("== big_fast_shipments\n")
    assert fast[0].splitlines() == [
        "2024-05-01 09:20:00.0\t1\tpen\tnorth\t2024-05-01 09:00:00.0",
        "2024-05-01 10:05:00.0\t3\tlamp\tnorth\t2024-05-01 09:10:00.0",
        "2024-05-01 10:15:00.0\t4\tnotebook\teast\t2024-05-01 09:30:00.0",
    ]
    big, hourly = fast[1].split("== shipments_per_hour\n")
    assert big.splitlines() == [
        "2024-05-01 10:05:00.0\t3\tlamp\t250.0",
        "2024-05-01 10:15:00.0\t4\tnotebook\t60.0",
    ]
    # One row per warehouse and closed hour, ROWTIME = the hour's end; 12:00-13:00 is still open.
    assert hourly.splitlines() == [
        "2024-05-01 10:00:00.0\tnorth\t1",
        "2024-05-01 11:00:00.0\teast\t1",
        "2024-05-01 11:00:00.0\tnorth\t1",
        "2024-05-01 11:00:00.0\tsouth\t1",
    ]
