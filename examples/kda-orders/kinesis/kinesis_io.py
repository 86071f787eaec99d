"""The Kinesis side of run.sh: create streams, put a file's JSON lines as records, print a stream.

python kinesis_io.py ENDPOINT wait              (until the endpoint answers)
python kinesis_io.py ENDPOINT create NAME...
python kinesis_io.py ENDPOINT put NAME FILE     (one record per non-empty line)
python kinesis_io.py ENDPOINT count NAME
python kinesis_io.py ENDPOINT print NAME KEY... (records as KEY values, tab-separated, sorted)
"""

from __future__ import annotations

import json
import sys
import time

import boto3


def records(client, name: str) -> list[dict]:  # type: ignore[no-untyped-def]
    out = []
    for shard in client.list_shards(StreamName=name)["Shards"]:
        it = client.get_shard_iterator(StreamName=name, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        it = it["ShardIterator"]
        while it:
            resp = client.get_records(ShardIterator=it, Limit=10000)
            out.extend(json.loads(r["Data"]) for r in resp["Records"])
            if not resp["Records"]:
                break
            it = resp.get("NextShardIterator")
    return out


def main(endpoint: str, command: str, *args: str) -> None:
    client = boto3.client("kinesis", endpoint_url=endpoint, region_name="us-east-1")
    if command == "wait":  # until the endpoint answers
        for _ in range(120):
            try:
                client.list_streams()
                return
            except Exception:
                time.sleep(0.5)
        raise SystemExit(f"no Kinesis endpoint answers at {endpoint}")
    if command == "create":
        for name in args:
            client.create_stream(StreamName=name, ShardCount=1)
            client.get_waiter("stream_exists").wait(StreamName=name, WaiterConfig={"Delay": 0.2})
    elif command == "put":
        name, path = args
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip()]
        entries = [{"Data": line.encode(), "PartitionKey": str(i)} for i, line in enumerate(lines)]
        resp = client.put_records(StreamName=name, Records=entries)
        assert resp.get("FailedRecordCount", 0) == 0, resp
    elif command == "count":
        print(len(records(client, args[0])))
    elif command == "print":
        name, *keys = args
        rows = sorted(tuple(str(r.get(k)) for k in keys) for r in records(client, name))
        for row in rows:
            print("\t".join(row))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
