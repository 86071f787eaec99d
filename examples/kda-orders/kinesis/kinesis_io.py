"""The Kinesis side of run.sh: create streams, put a file's JSON lines as records, print a stream.

python kinesis_io.py ENDPOINT wait              (until the endpoint answers)
python kinesis_io.py ENDPOINT create NAME...
python kinesis_io.py ENDPOINT put NAME FILE     (one record per non-empty line)
python kinesis_io.py ENDPOINT taken NAME STATE N (until N pumps of the server with state dir STATE
                                                 have taken every record of NAME into a micro-batch)
python kinesis_io.py ENDPOINT counts NAME=N...  (until each stream NAME holds N records)
python kinesis_io.py ENDPOINT print NAME KEY... (records as KEY values, tab-separated, sorted)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import boto3

WAIT = 600.0  # seconds a wait may take before it fails


def raw_records(client, name: str) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    """Every record of every shard of stream ``name``, from the start, by shard id."""
    out: dict[str, list[dict]] = {}
    for shard in client.list_shards(StreamName=name)["Shards"]:
        got = out.setdefault(shard["ShardId"], [])
        it = client.get_shard_iterator(StreamName=name, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        it = it["ShardIterator"]
        while it:
            resp = client.get_records(ShardIterator=it, Limit=10000)
            got.extend(resp["Records"])
            if not resp["Records"]:
                break
            it = resp.get("NextShardIterator")
    return out


def records(client, name: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(r["Data"]) for shard in raw_records(client, name).values() for r in shard]


def pumps_that_took(name: str, state: str, last: dict[str, int]) -> int:
    """How many pump checkpoints (``STATE/checkpoints/<pump>``) have planned a micro-batch that reads
    stream ``name`` through sequence number ``last[shard]`` of every shard: in the latest file of
    their offset log, the line of its source says, per shard, the last record taken (``after``)."""
    n = 0
    for checkpoint in Path(state, "checkpoints").glob("*"):
        logged = [p for p in (checkpoint / "offsets").glob("*") if p.name.isdigit()]
        if not logged:
            continue
        for line in max(logged, key=lambda p: int(p.name)).read_text().splitlines()[2:]:
            source = json.loads(line) if line.startswith("{") else None
            if isinstance(source, dict) and source.get("stream") == name:
                shards = source.get("shards") or {}
                after = {s: (shards.get(s) or {}).get("after") for s in last}
                if all(a is not None and int(a) >= seq for a, seq in zip(after.values(), last.values())):
                    n += 1
    return n


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
    elif command == "taken":  # the next records put go into a later micro-batch of those pumps
        name, state, pumps = args
        last = {s: int(rs[-1]["SequenceNumber"]) for s, rs in raw_records(client, name).items() if rs}
        deadline = time.monotonic() + WAIT
        while pumps_that_took(name, state, last) < int(pumps):
            if time.monotonic() > deadline:
                raise SystemExit(f"{pumps} pumps did not take the records of {name} in {WAIT:.0f} s")
            time.sleep(0.2)
    elif command == "counts":
        wanted = {name: int(n) for name, n in (a.split("=") for a in args)}
        deadline = time.monotonic() + WAIT
        while any(len(records(client, name)) != n for name, n in wanted.items()):
            if time.monotonic() > deadline:
                have = {name: len(records(client, name)) for name in wanted}
                raise SystemExit(f"streams do not hold {wanted} records in {WAIT:.0f} s: {have}")
            time.sleep(0.2)
    elif command == "print":
        name, *keys = args
        rows = sorted(tuple(str(r.get(k)) for k in keys) for r in records(client, name))
        for row in rows:
            print("\t".join(row))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
