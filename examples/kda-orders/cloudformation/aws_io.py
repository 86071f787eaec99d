"""The AWS side of the kda-orders CloudFormation example, against moto's server: what the template
would create, the input records, and what the application wrote (see README.md here)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import boto3

STAGE = "demo"


def client(endpoint: str, service: str):  # type: ignore[no-untyped-def]
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1")


def create(endpoint: str, products: Path) -> None:
    """The template's streams, delivery streams and bucket, and the reference data object."""
    kinesis, firehose, s3 = (client(endpoint, s) for s in ("kinesis", "firehose", "s3"))
    for name in (f"kda-orders-events-{STAGE}", f"kda-orders-hourly-{STAGE}"):
        kinesis.create_stream(StreamName=name, ShardCount=1)
        kinesis.get_waiter("stream_exists").wait(StreamName=name, WaiterConfig={"Delay": 0.2})
    bucket = f"kda-orders-{STAGE}"
    s3.create_bucket(Bucket=bucket)
    # KDA's reference data has no header row: the CSV's rows only.
    s3.put_object(Bucket=bucket, Key="reference/products.csv", Body="".join(products.read_text().splitlines(True)[1:]))
    for name, prefix in (("fast", "fast/"), ("errors", "errors/")):
        firehose.create_delivery_stream(
            DeliveryStreamName=f"kda-orders-{name}-{STAGE}",
            ExtendedS3DestinationConfiguration={"BucketARN": f"arn:aws:s3:::{bucket}", "Prefix": prefix,
                                                "RoleARN": "arn:aws:iam::123456789012:role/firehose"},
        )  # fmt: skip


def put(endpoint: str, events: Path) -> None:
    records = [{"Data": line.encode(), "PartitionKey": "orders"} for line in events.read_text().splitlines() if line]
    client(endpoint, "kinesis").put_records(StreamName=f"kda-orders-events-{STAGE}", Records=records)


def _objects(endpoint: str, prefix: str) -> list[dict]:
    s3 = client(endpoint, "s3")
    docs = []
    for o in sorted(
        s3.list_objects_v2(Bucket=f"kda-orders-{STAGE}", Prefix=prefix).get("Contents", []), key=lambda o: o["Key"]
    ):
        text, i = s3.get_object(Bucket=f"kda-orders-{STAGE}", Key=o["Key"])["Body"].read().decode(), 0
        decoder = json.JSONDecoder()
        while i < len(text):  # Firehose concatenates the records: JSON documents one after another
            doc, i = decoder.raw_decode(text, i)
            docs.append(doc)
    return docs


def _hourly(endpoint: str) -> list[str]:
    kinesis = client(endpoint, "kinesis")
    name = f"kda-orders-hourly-{STAGE}"
    shard = kinesis.list_shards(StreamName=name)["Shards"][0]["ShardId"]
    it = kinesis.get_shard_iterator(StreamName=name, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return [r["Data"].decode() for r in kinesis.get_records(ShardIterator=it, Limit=10000)["Records"]]


def wait(endpoint: str, fast: int, errors: int, hourly: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = (len(_objects(endpoint, "fast/")), len(_objects(endpoint, "errors/")), len(_hourly(endpoint)))
        if got >= (fast, errors, hourly):
            return
        time.sleep(0.5)
    sys.exit(f"timed out waiting for the outputs: fast shipments, errors, hourly counts = {got}")


def show(endpoint: str) -> None:
    print("== Firehose kda-orders-fast-demo (its S3 objects, JSON)")
    for d in sorted(_objects(endpoint, "fast/"), key=lambda d: d["orderId"]):
        print(json.dumps(d))
    print("== Kinesis kda-orders-hourly-demo (CSV)")
    for line in sorted(_hourly(endpoint)):
        print(line, end="")
    print("== Firehose kda-orders-errors-demo (error_stream, JSON)")
    for d in _objects(endpoint, "errors/"):
        print(d["ERROR_NAME"], "|", d["MESSAGE"], "|", bytes.fromhex(d["DATA_ROW"]).decode())


if __name__ == "__main__":
    command, endpoint, *rest = sys.argv[1:]
    if command == "create":
        create(endpoint, Path(rest[0]))
    elif command == "put":
        put(endpoint, Path(rest[0]))
    elif command == "wait":
        wait(endpoint, *(int(x) for x in rest))
    elif command == "show":
        show(endpoint)
    else:
        sys.exit(f"aws_io.py: unknown command {command}")
