"""moto's server on loopback (Kinesis, Firehose, S3) for the Kinesis and KDA application tests:
started as a subprocess, stopped by PID."""

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

    def client(self, service: str = "kinesis") -> Any:
        import boto3

        return boto3.client(
            service, endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip

    def delivery_stream(self, name: str, bucket: str, prefix: str) -> None:
        """A Firehose delivery stream that delivers to `bucket` (made if missing) under `prefix`."""
        s3 = self.client("s3")
        if bucket not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]:
            s3.create_bucket(Bucket=bucket)
        self.client("firehose").create_delivery_stream(
            DeliveryStreamName=name,
            ExtendedS3DestinationConfiguration={"BucketARN": f"arn:aws:s3:::{bucket}", "Prefix": prefix,
                                                "RoleARN": "arn:aws:iam::123456789012:role/firehose"},
        )  # fmt: skip

    def objects(self, bucket: str, prefix: str = "") -> list[bytes]:
        """The bodies of the objects under `prefix`, in key order."""
        s3 = self.client("s3")
        keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []))
        return [s3.get_object(Bucket=bucket, Key=k)["Body"].read() for k in keys]

    def create(self, name: str, shards: int = 1) -> None:
        c = self.client()
        c.create_stream(StreamName=name, ShardCount=shards)
        c.get_waiter("stream_exists").wait(StreamName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})

    def put(
        self,
        stream: str,
        records: list[dict[str, Any] | str | bytes],
        key: str | None = None,
        keys: list[str] | None = None,
    ) -> None:
        """PutRecords of `records` (JSON objects, text or bytes), keyed by `keys` (one per record),
        else all by `key`, else each by its position."""
        entries = []
        for i, r in enumerate(records):
            data = r if isinstance(r, bytes) else (r if isinstance(r, str) else json.dumps(r)).encode()
            entries.append({"Data": data, "PartitionKey": keys[i] if keys else (key or f"k{i}")})
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

    def records(self, stream: str) -> list[dict[str, Any]]:
        """Every record of every shard, from the start, as GetRecords gives it, with its ``ShardId``."""
        c = self.client()
        out: list[dict[str, Any]] = []
        for shard in c.list_shards(StreamName=stream)["Shards"]:
            it = c.get_shard_iterator(StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")[
                "ShardIterator"
            ]
            while it:
                resp = c.get_records(ShardIterator=it, Limit=10000)
                out.extend({**r, "ShardId": shard["ShardId"]} for r in resp["Records"])
                if not resp["Records"]:
                    break
                it = resp.get("NextShardIterator")
        return out

    def keys_by_shard(self, stream: str) -> list[str]:
        """One partition key for each shard of `stream` (by its hash key range, as Kinesis and
        moto place a record: the MD5 of its key), in the order of the ranges."""
        import hashlib

        shards = self.client().list_shards(StreamName=stream)["Shards"]
        ranges = sorted(
            (int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"])) for s in shards
        )
        keys = []
        for lo, hi in ranges:
            keys.append(next(k for k in (f"key{i}" for i in range(100000))
                             if lo <= int(hashlib.md5(k.encode()).hexdigest(), 16) <= hi))  # fmt: skip
        return keys

    def access_key(self, user: str) -> dict[str, str]:
        """Credentials of an IAM user of moto allowed every Kinesis and IAM action (made while moto
        checks no credentials): the options aws_access_key_id and aws_secret_access_key."""
        import boto3

        iam = boto3.client("iam", endpoint_url=self.endpoint, region_name=REGION,
                           aws_access_key_id="testing", aws_secret_access_key="testing")  # fmt: skip
        if user not in [u["UserName"] for u in iam.list_users()["Users"]]:
            iam.create_user(UserName=user)
            policy = {"Version": "2012-10-17",
                      "Statement": [{"Effect": "Allow", "Action": ["kinesis:*", "iam:*"], "Resource": "*"}]}  # fmt: skip
            iam.put_user_policy(UserName=user, PolicyName="all-kinesis", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=user)["AccessKey"]
        return {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}

    def require_credentials(self) -> None:
        """From now on moto checks every request's credentials against its IAM users, as AWS does
        (moto's INITIAL_NO_AUTH_ACTION_COUNT, set through its /moto-api/reset-auth)."""
        import urllib.request

        req = urllib.request.Request(f"{self.endpoint}/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})  # fmt: skip
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert json.loads(resp.read())["status"] == "ok"
