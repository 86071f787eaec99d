"""examples/kda-orders/cloudformation/run.sh: the example application's CloudFormation template
imported with `overjoin import` and run against moto with one command, as its README says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jvm import short_lived_env
from tests.server.serverproc import free_port

pytestmark = pytest.mark.server

RUN = Path(__file__).resolve().parent.parent.parent / "examples" / "kda-orders" / "cloudformation" / "run.sh"


def test_kda_orders_cloudformation_example() -> None:
    env = short_lived_env({**os.environ, "PYTHON": sys.executable, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
                           "THRIFT_PORT": str(free_port()), "CONNECT_PORT": str(free_port()), "MOTO_PORT": str(free_port())})  # fmt: skip
    done = subprocess.run([str(RUN)], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    fast = out.split("== Firehose kda-orders-fast-demo (its S3 objects, JSON)\n", 1)[1].split("== Kinesis")[0]
    assert fast.splitlines() == [
        '{"orderId": 1, "product": "pen", "warehouse": "north", "orderTime": "2024-05-01 09:00:00.000"}',
        '{"orderId": 3, "product": "lamp", "warehouse": "north", "orderTime": "2024-05-01 09:10:00.000"}',
        '{"orderId": 5, "product": "notebook", "warehouse": "east", "orderTime": "2024-05-01 09:31:00.000"}',
    ], out[-3000:]
    hourly = out.split("== Kinesis kda-orders-hourly-demo (CSV)\n", 1)[1].split("== Firehose")[0]
    assert hourly.splitlines() == ["east,1", "north,1", "north,1", "south,1"], out[-3000:]
    errors = out.split("== Firehose kda-orders-errors-demo (error_stream, JSON)\n", 1)[1].splitlines()
    assert len(errors) == 1 and errors[0].startswith("Coercion error | ") and '"qty": "five"' in errors[0]
