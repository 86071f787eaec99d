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


def test_refused_credentials_are_worded_with_the_options_to_fix() -> None:
    """Kinesis's JSON errors and the XML ones some endpoints answer with (moto does)."""
    pytest.importorskip("botocore")
    from botocore.exceptions import ClientError, EndpointConnectionError

    from pyspark_overjoin_kinesis import _error

    o = KinesisOptions.parse({"stream": "orders", "endpoint": "http://127.0.0.1:1"})

    def client_error(code: str, message: str, status: int) -> ClientError:
        response = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
        return ClientError(response, "DescribeStreamSummary")  # type: ignore[arg-type]

    e = str(_error(o, client_error("UnrecognizedClientException", "bad key", 400), "describing it"))
    assert e.startswith("kinesis: kinesis stream 'orders' (us-east-1 at http://127.0.0.1:1): describing it failed:")
    assert "credentials are missing or refused (UnrecognizedClientException)" in e and "aws_access_key_id" in e
    xml = "<ErrorResponse><Errors><Error><Code>InvalidClientTokenId</Code><Message>The token is invalid.</Message>"
    e = str(_error(o, client_error("403", xml, 403), "describing it"))
    assert "credentials are missing or refused (InvalidClientTokenId)" in e and "The token is invalid." in e
    assert "<" not in e
    e = str(_error(o, client_error("AccessDeniedException", "not allowed", 400), "listing its shards"))
    assert "not allowed to do this (AccessDeniedException)" in e
    e = str(_error(o, EndpointConnectionError(endpoint_url="http://127.0.0.1:1"), "describing it"))
    assert "the endpoint does not answer" in e


def test_writers_get_the_credentials_found_where_the_write_is_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("boto3")
    from pyspark_overjoin_kinesis import _with_server_credentials

    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDSERVER")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "server-secret")
    found = _with_server_credentials(KinesisOptions.parse({"stream": "s"}))
    assert dict(found.credentials) == {"aws_access_key_id": "AKIDSERVER", "aws_secret_access_key": "server-secret"}
    given = KinesisOptions.parse({"stream": "s", "aws_access_key_id": "AKIDOPT", "aws_secret_access_key": "x"})
    assert _with_server_credentials(given) is given
