"""The Kinesis data source's options and PutRecords batching (pyspark_overjoin_kinesis), without
Spark or a Kinesis endpoint; tests/server/test_kinesis.py runs it against moto's server."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")

from pyspark_overjoin_kinesis import (
    _PUT_MAX_BYTES,
    KinesisOptions,
    KinesisSourceError,
    _entries,
    _starting_position,
)


def test_options_are_checked_with_their_names() -> None:
    o = KinesisOptions.parse({"stream": "s", "REGION": "eu-west-1", "path": "ignored", "overjoin.x": "y"})
    assert (o.stream, o.region, o.starting_position, o.endpoint) == ("s", "eu-west-1", "LATEST", None)
    with pytest.raises(KinesisSourceError, match=r"unknown option shards .*known: "):
        KinesisOptions.parse({"stream": "s", "shards": "2"})
    with pytest.raises(KinesisSourceError, match="option stream is missing"):
        KinesisOptions.parse({"region": "us-east-1"})
    with pytest.raises(KinesisSourceError, match="max_records_per_shard must be a number"):
        KinesisOptions.parse({"stream": "s", "max_records_per_shard": "many"})


def test_starting_positions() -> None:
    assert _starting_position("trim_horizon") == "TRIM_HORIZON"
    assert _starting_position("LATEST") == "LATEST"
    assert _starting_position("AT_TIMESTAMP 2024-01-01T00:00:00Z") == "AT_TIMESTAMP:1704067200.0"
    assert _starting_position("AT_TIMESTAMP 1704067200") == "AT_TIMESTAMP:1704067200.0"
    with pytest.raises(KinesisSourceError, match="cannot read the time"):
        _starting_position("AT_TIMESTAMP yesterday")
    with pytest.raises(KinesisSourceError, match="must be TRIM_HORIZON, LATEST or AT_TIMESTAMP"):
        _starting_position("EARLIEST")


def test_put_records_requests_hold_at_most_500_records_and_5_mb() -> None:
    rows = [{"value": f"r{i}", "partition_key": "k"} for i in range(1201)]
    sizes = [len(b) for b in _entries(iter(rows))]
    assert sizes == [500, 500, 201]
    big = "x" * (1024 * 1024 - 10)
    batches = list(_entries(iter([{"value": big, "partition_key": None}] * 12)))
    assert all(sum(len(e["Data"]) + len(e["PartitionKey"]) for e in b) <= _PUT_MAX_BYTES for b in batches)
    assert sum(len(b) for b in batches) == 12
    # no partition key: one derived from the record, the same for the same record
    keys = [e["PartitionKey"] for b in _entries(iter([{"value": "a"}, {"value": "a"}, {"value": None}])) for e in b]
    assert len(keys) == 2 and keys[0] == keys[1]
