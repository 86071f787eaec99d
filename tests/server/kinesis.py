"""moto's Kinesis server on loopback for the Kinesis tests: started as a subprocess, stopped by PID."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.server.serverproc import free_port

REGION = "us-east-1"
#: Dummy credentials, for moto (which accepts any) and the server's environment.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": REGION}


@dataclass
class Moto:
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Moto:
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=out, stderr=out, start_new_session=True, env={**os.environ, **CREDENTIALS},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client().list_streams()
                return self
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"moto server did not start: {self.log.read_text()[-2000:]}") from None
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(20)

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "kinesis", endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip

    def create(self, name: str, shards: int = 1) -> None:
        c = self.client()
        c.create_stream(StreamName=name, ShardCount=shards)
        c.get_waiter("stream_exists").wait(StreamName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})

    def put(self, stream: str, records: list[dict[str, Any] | str | bytes], key: str | None = None) -> None:
        entries = []
        for i, r in enumerate(records):
            data = r if isinstance(r, bytes) else (r if isinstance(r, str) else json.dumps(r)).encode()
            entries.append({"Data": data, "PartitionKey": key or f"k{i}"})
        for i in range(0, len(entries), 500):
            resp = self.client().put_records(StreamName=stream, Records=entries[i : i + 500])
            assert resp.get("FailedRecordCount", 0) == 0, resp

    def read_all(self, stream: str) -> list[bytes]:
        """Every record of every shard, from the start."""
        c = self.client()
        out: list[bytes] = []
        for shard in c.list_shards(StreamName=stream)["Shards"]:
            it = c.get_shard_iterator(StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")[
                "ShardIterator"
            ]
            while it:
                resp = c.get_records(ShardIterator=it, Limit=10000)
                out.extend(r["Data"] for r in resp["Records"])
                if not resp["Records"]:
                    break
                it = resp.get("NextShardIterator")
        return out
