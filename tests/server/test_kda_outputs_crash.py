"""A KDA application's outputs across a `kill -9` of the server (docs/server.md, "Outputs"): what a
Lambda function and a Firehose delivery stream are sent is at least once, as KDA's delivery was.

sensor_alerts.yaml (a v2 application, two outputs of one in-application stream) is imported and
run; readings are sent to Kinesis while the server runs, while it is killed and after it is
started again on the same state directory; every alert (a reading with a positive value) must reach
both destinations, once or more.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.kinesis import CREDENTIALS, REGION, Moto
from tests.server.lambda_standin import LambdaStandIn
from tests.server.serverproc import Server, wait_until
from tests.server.test_kda_apps import concatenated_json, overjoin_import, statements

pytestmark = pytest.mark.server

DEFINITION = (
    Path(__file__).resolve().parent.parent / "unit" / "kda_definitions" / "cloudformation" / "sensor_alerts.yaml"
)


def test_lambda_and_firehose_outputs_lose_nothing_across_kill_9(tmp_path: Path) -> None:
    moto = Moto(tmp_path / "moto.log").start()
    lam = LambdaStandIn().start()
    delivered: list[int] = []
    lock = threading.Lock()

    def page_on_call(event: dict[str, Any]) -> dict[str, Any]:
        with lock:
            delivered.extend(json.loads(base64.b64decode(r["data"]))["reading_id"] for r in event["records"])
        return {"records": [{"recordId": r["recordId"], "result": "Ok"} for r in event["records"]]}

    lam.functions["page-on-call"] = page_on_call
    env = {**os.environ, **CREDENTIALS, "AWS_REGION": REGION, "AWS_ENDPOINT_URL": moto.endpoint,
           "AWS_ENDPOINT_URL_LAMBDA": lam.endpoint}  # fmt: skip
    server = Server(tmp_path / "state", env=env).start()
    try:
        moto.create("sensor-readings", shards=2)
        moto.delivery_stream("alert-archive", "alerts", "archive/")
        script, _ = overjoin_import(DEFINITION)
        server.execute(*statements(script))
        total, per_batch = 400, 20
        sent = threading.Event()

        def feed() -> None:
            for start in range(0, total, per_batch):
                batch = [{"id": i, "reading": {"value": (i % 5) - 1.5, "sensor": f"s{i % 3}"}}
                         for i in range(start, start + per_batch)]  # fmt: skip
                moto.put("sensor-readings", batch, keys=[f"s{i % 3}" for i in range(start, start + per_batch)])
                time.sleep(0.25)
            sent.set()

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        # Killed once the alerts are flowing, while readings are still being sent.
        wait_until(lambda: len(delivered) > 40, timeout=300, what="the first alerts at the Lambda function")
        server.kill()
        server = Server(tmp_path / "state", env=env).start()
        feeder.join(120)
        assert sent.is_set()
        expected = {i for i in range(total) if (i % 5) - 1.5 > 0}

        def archived() -> set[int]:
            return {d["reading_id"] for d in concatenated_json(moto.objects("alerts", "archive/"))}

        wait_until(lambda: expected <= set(delivered), timeout=300, what="every alert at the Lambda function")
        wait_until(lambda: expected <= archived(), timeout=300, what="every alert in the delivery stream")
        with lock:
            assert set(delivered) == expected  # nothing else: at least once, never a wrong row
        assert archived() == expected
    finally:
        server.stop()
        lam.stop()
        moto.stop()
