"""The AWS data sources' options, batching and answers (overjoin.aws), without Spark or an endpoint;
tests/server/test_kinesis.py and tests/server/test_kda_apps.py run them against moto's server and a
Lambda stand-in."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest

pytest.importorskip("boto3")

from overjoin.aws import firehose_sink, kinesis_sink, lambda_sink
from overjoin.aws.connection import AwsError, Connection, worded
from overjoin.aws.firehose_source import destination_of, split_records
from overjoin.aws.kinesis_source import KinesisOptions, ShardGroup, starting_position
from overjoin.aws.lambda_preprocessor import Preprocessor, SourceRecord


def test_kinesis_options_are_checked_with_their_names() -> None:
    o = KinesisOptions.parse({"stream": "s", "REGION": "eu-west-1", "path": "ignored", "overjoin.x": "y"})
    assert (o.stream, o.connection.region, o.starting_position, o.connection.endpoint) == (
        "s",
        "eu-west-1",
        "LATEST",
        None,
    )
    with pytest.raises(AwsError, match=r"unknown option shards .*known: "):
        KinesisOptions.parse({"stream": "s", "shards": "2"})
    with pytest.raises(AwsError, match="option stream is missing"):
        KinesisOptions.parse({"region": "us-east-1"})
    with pytest.raises(AwsError, match="max_records_per_shard must be a number"):
        KinesisOptions.parse({"stream": "s", "max_records_per_shard": "many"})


def test_a_stream_named_by_its_arn_takes_its_region_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    o = KinesisOptions.parse({"stream": "arn:aws:kinesis:eu-central-1:123456789012:stream/clicks"})
    assert (o.stream, o.connection.region) == ("clicks", "eu-central-1")
    assert KinesisOptions.parse({"stream": "clicks"}).connection.region == "us-west-2"
    # the option wins over the ARN
    o = KinesisOptions.parse({"stream": "arn:aws:kinesis:eu-central-1:1:stream/c", "region": "ap-south-1"})
    assert o.connection.region == "ap-south-1"


def test_starting_positions() -> None:
    assert starting_position("trim_horizon") == "TRIM_HORIZON"
    assert starting_position("LATEST") == "LATEST"
    assert starting_position("AT_TIMESTAMP 2024-01-01T00:00:00Z") == "AT_TIMESTAMP:1704067200.0"
    assert starting_position("AT_TIMESTAMP 1704067200") == "AT_TIMESTAMP:1704067200.0"
    with pytest.raises(AwsError, match="cannot read the time"):
        starting_position("AT_TIMESTAMP yesterday")
    with pytest.raises(AwsError, match="must be TRIM_HORIZON, LATEST or AT_TIMESTAMP"):
        starting_position("EARLIEST")


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shard_groups_share_every_shard_once_and_evenly(count: int) -> None:
    shards = [f"shardId-{i:012d}" for i in range(50)]
    groups = [ShardGroup.parse(f"{k} of {count}") for k in range(1, count + 1)]
    held = [[s for s in shards if g.holds(s)] for g in groups]
    assert sorted(s for h in held for s in h) == shards
    assert max(map(len, held)) - min(map(len, held)) <= 1
    for bad in ("0 of 2", "3 of 2", "1 of 65", "first"):
        with pytest.raises(AwsError, match="shard_group must be 'k of n'"):
            ShardGroup.parse(bad)


def test_put_records_requests_hold_at_most_500_records_and_5_mb() -> None:
    rows = [{"value": f"r{i}", "partition_key": "k"} for i in range(1201)]
    assert [len(b) for b in kinesis_sink.entries(iter(rows))] == [500, 500, 201]
    big = "x" * (1024 * 1024 - 10)
    batches = list(kinesis_sink.entries(iter([{"value": big, "partition_key": None}] * 12)))
    assert all(sum(len(e["Data"]) + len(e["PartitionKey"]) for e in b) <= 5 * 1024 * 1024 for b in batches)
    assert sum(len(b) for b in batches) == 12
    # no partition key: one derived from the record, the same for the same record
    keys = [
        e["PartitionKey"]
        for b in kinesis_sink.entries(iter([{"value": "a"}, {"value": "a"}, {"value": None}]))
        for e in b
    ]
    assert len(keys) == 2 and keys[0] == keys[1]


def test_put_record_batch_requests_keep_firehose_limits() -> None:
    rows = [{"value": "x" * 10_000} for _ in range(1001)]
    batches = list(firehose_sink.batches(iter(rows)))
    assert all(len(b) <= 500 and sum(len(e["Data"]) for e in b) <= 4 * 1024 * 1024 for b in batches)
    assert sum(len(b) for b in batches) == 1001
    with pytest.raises(AwsError, match="over Firehose's limit of 1,000 KiB a record"):
        list(firehose_sink.batches(iter([{"value": "y" * (1000 * 1024 + 1)}])))


class _Throttling:
    """PutRecordBatch that fails the records at `fail` indexes in its first answer."""

    def __init__(self, fail: set[int]) -> None:
        self.fail = fail
        self.calls: list[list[bytes]] = []

    def put_record_batch(self, DeliveryStreamName: str, Records: list[dict[str, bytes]]) -> dict[str, Any]:
        self.calls.append([r["Data"] for r in Records])
        bad = self.fail if len(self.calls) == 1 else set()
        return {
            "FailedPutCount": len(bad),
            "RequestResponses": [
                {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "slow down"}
                if i in bad
                else {"RecordId": "r"}
                for i in range(len(Records))
            ],
        }


def test_put_record_batch_sends_again_only_the_failed_records() -> None:
    o = firehose_sink.FirehoseOptions.parse({"delivery_stream": "arn:aws:firehose:us-east-1:1:deliverystream/out"})
    assert o.delivery_stream == "out"
    client = _Throttling({1, 3})
    entries = [{"Data": f"r{i}".encode()} for i in range(5)]
    assert firehose_sink.put_all(o, client, entries) == 2
    assert client.calls == [[b"r0", b"r1", b"r2", b"r3", b"r4"], [b"r1", b"r3"]]
    always = firehose_sink.FirehoseOptions.parse({"delivery_stream": "out", "max_put_attempts": "2"})

    class Never(_Throttling):
        def put_record_batch(self, DeliveryStreamName: str, Records: list[dict[str, bytes]]) -> dict[str, Any]:
            self.calls.append([])
            return {"FailedPutCount": len(Records), "RequestResponses": [{"ErrorCode": "X"} for _ in Records]}

    with pytest.raises(AwsError, match=r"2 record\(s\) still failed after 2 PutRecordBatch attempts"):
        firehose_sink.put_all(always, Never(set()), entries[:2])


def test_errors_are_worded_with_the_resource_and_the_options_to_fix() -> None:
    """JSON errors and the XML ones some endpoints answer with (moto does)."""
    from botocore.exceptions import ClientError, EndpointConnectionError

    o = KinesisOptions.parse({"stream": "orders", "endpoint": "http://127.0.0.1:1"})

    def client_error(code: str, message: str, status: int) -> ClientError:
        response = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
        return ClientError(response, "DescribeStreamSummary")  # type: ignore[arg-type]

    e = str(o.error(client_error("UnrecognizedClientException", "bad key", 400), "describing it"))
    assert e.startswith("kinesis: stream 'orders' (us-east-1 at http://127.0.0.1:1): describing it failed:")
    assert "credentials are missing or refused (UnrecognizedClientException)" in e and "aws_access_key_id" in e
    xml = "<ErrorResponse><Errors><Error><Code>InvalidClientTokenId</Code><Message>The token is invalid.</Message>"
    e = str(o.error(client_error("403", xml, 403), "describing it"))
    assert "credentials are missing or refused (InvalidClientTokenId)" in e and "The token is invalid." in e
    assert "<" not in e
    e = str(o.error(client_error("AccessDeniedException", "not allowed", 400), "listing its shards"))
    assert "not allowed to do this (AccessDeniedException)" in e
    e = str(o.error(EndpointConnectionError(endpoint_url="http://127.0.0.1:1"), "describing it"))
    assert "the endpoint does not answer" in e
    c = Connection.of("s3", {})
    e = str(worded(c, "object s3://b/k", client_error("NoSuchKey", "gone", 404), "reading it", "bucket/key"))
    assert "it does not exist: create it, or fix the options bucket/key/region/endpoint" in e


def _clean_aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_KINESIS",
                 "AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_FIREHOSE", "AWS_ENDPOINT_URL_S3",
                 "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")


def test_writers_get_the_endpoint_and_credentials_found_where_the_write_is_planned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _clean_aws_environment(monkeypatch)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDSERVER")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "server-secret")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", "http://127.0.0.1:9001")
    found = Connection.of("kinesis", {}).frozen()
    assert dict(found.credentials) == {"aws_access_key_id": "AKIDSERVER", "aws_secret_access_key": "server-secret"}
    assert found.endpoint == "http://127.0.0.1:4566"
    # botocore's own rule: the service's variable wins over AWS_ENDPOINT_URL
    assert Connection.of("lambda", {}).frozen().endpoint == "http://127.0.0.1:9001"
    given = Connection.of(
        "kinesis", {"aws_access_key_id": "AKIDOPT", "aws_secret_access_key": "x", "endpoint": "http://e"}
    )
    assert given.frozen() == given


class _Lambda:
    """A Lambda client whose function is `answer(event) -> (body, function error)`."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.events: list[dict[str, Any]] = []

    def invoke(self, FunctionName: str, InvocationType: str, Payload: bytes) -> dict[str, Any]:
        event = json.loads(Payload)
        self.events.append(event)
        body, error = self.answer(event)
        out: dict[str, Any] = {"StatusCode": 200, "Payload": io.BytesIO(json.dumps(body).encode())}
        if error:
            out["FunctionError"] = "Unhandled"
        return out


def _records(n: int) -> list[SourceRecord]:
    return [SourceRecord(str(i), f'{{"n": {i}}}'.encode(), None, {"shardId": "shardId-0", "partitionKey": "k",
                                                                 "sequenceNumber": str(i)}) for i in range(n)]  # fmt: skip


def _preprocessor(client: _Lambda, attempts: int = 3) -> Preprocessor:
    p = Preprocessor(Connection.of("lambda", {}), "clean", "arn:app", "arn:stream", "kinesis", attempts)
    p._client = client
    return p


def test_a_preprocessor_gets_kdas_event_and_its_answer_decides_each_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("overjoin.aws.lambda_invoke.backoff", lambda attempt: None)

    def answer(event: dict[str, Any]) -> tuple[Any, bool]:
        out = []
        for r in event["records"]:
            n = json.loads(base64.b64decode(r["data"]))["n"]
            result = {0: "Ok", 1: "Dropped", 2: "ProcessingFailed"}[n % 3]
            item = {"recordId": r["recordId"], "result": result}
            if result == "Ok":
                item["data"] = base64.b64encode(json.dumps({"n": n, "seen": True}).encode()).decode()
            out.append(item)
        return {"records": out}, False

    client = _Lambda(answer)
    outcomes = _preprocessor(client).process(_records(6))
    event = client.events[0]
    assert set(event) == {"invocationId", "applicationArn", "streamArn", "records"}
    assert event["records"][0]["kinesisStreamRecordMetadata"]["sequenceNumber"] == "0"
    assert [(o.record.record_id, o.data is not None, o.failure is not None) for o in outcomes] == [
        ("0", True, False), ("1", False, False), ("2", True, True),
        ("3", True, False), ("4", False, False), ("5", True, True),
    ]  # fmt: skip
    assert json.loads(outcomes[0].data or b"") == {"n": 0, "seen": True}
    assert outcomes[2].data == _records(3)[2].data  # a failed record keeps its bytes (for error_stream)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (lambda e: ({"records": []}, False), "missing from the answer"),
        (lambda e: ({"records": [{"recordId": r["recordId"], "result": "Maybe"} for r in e["records"]]}, False),
         "not Ok, Dropped or ProcessingFailed"),
        (lambda e: ({"records": [{"recordId": r["recordId"], "result": "Ok"} for r in e["records"]]}, False),
         "is Ok but has no data"),
        (lambda e: ({"errorMessage": "boom"}, True), "the function failed"),
    ],
)  # fmt: skip
def test_a_preprocessor_answer_that_is_not_kdas_is_retried_then_fails_the_read(
    monkeypatch: pytest.MonkeyPatch, answer: Any, why: str
) -> None:
    monkeypatch.setattr("overjoin.aws.lambda_invoke.backoff", lambda attempt: None)
    client = _Lambda(answer)
    with pytest.raises(AwsError, match=f"still failing after 3 attempts: .*{why}"):
        _preprocessor(client).process(_records(2))
    assert len(client.events) == 3


def test_a_lambda_output_sends_again_what_is_not_answered_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("overjoin.aws.lambda_invoke.backoff", lambda attempt: None)
    first: set[str] = set()

    def answer(event: dict[str, Any]) -> tuple[Any, bool]:
        out = []
        for r in event["records"]:
            data = base64.b64decode(r["data"]).decode()
            # even records fail once, then are Ok; one is not answered at all the first time
            if data.endswith(("0", "2", "4")) and data not in first:
                first.add(data)
                if data != "r4":
                    out.append({"recordId": r["recordId"], "result": "DeliveryFailed"})
                continue
            out.append({"recordId": r["recordId"], "result": "Ok"})
        return {"records": out}, False

    client = _Lambda(answer)
    o = lambda_sink.LambdaOptions.parse({"function": "sink", "application_arn": "arn:app"})
    calls = lambda_sink.deliver(o, client, [f"r{i}".encode() for i in range(5)])
    assert calls == 2
    sent = [[(base64.b64decode(r["data"]).decode(), r["lambdaDeliveryRecordMetadata"]["retryHint"])
             for r in e["records"]] for e in client.events]  # fmt: skip
    assert sent == [[("r0", 0), ("r1", 0), ("r2", 0), ("r3", 0), ("r4", 0)], [("r0", 1), ("r2", 1), ("r4", 1)]]
    assert all(e["applicationArn"] == "arn:app" and len(e["invocationId"]) == 36 for e in client.events)
    ids = [r["recordId"] for e in client.events for r in e["records"]]
    assert ids[0] == ids[5]  # a record keeps its id when it is sent again


def test_a_lambda_output_fails_the_write_after_max_attempts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("overjoin.aws.lambda_invoke.backoff", lambda attempt: None)
    client = _Lambda(lambda e: ({"errorMessage": "down"}, True))
    o = lambda_sink.LambdaOptions.parse({"function": "sink", "max_attempts": "4"})
    with pytest.raises(
        AwsError, match=r"still failing after 4 attempts: 2 record\(s\) not delivered: the function failed"
    ):
        lambda_sink.deliver(o, client, [b"a", b"b"])
    assert len(client.events) == 4


def test_lambda_calls_stay_under_the_request_limit() -> None:
    records = [b"x" * 1_000_000] * 12
    calls = list(lambda_sink._calls(records, 500))
    assert sorted(i for c in calls for i in c) == list(range(12))
    assert all(sum(4 * (len(records[i]) + 2) // 3 for i in c) < 6_000_000 for c in calls)
    assert [len(c) for c in lambda_sink._calls([b"y"] * 1200, 500)] == [500, 500, 200]


def test_firehose_objects_split_into_the_records_concatenated_in_them() -> None:
    assert split_records(b'{"a": 1}{"a": 2}\n {"a": [3]}') == [b'{"a": 1}', b'{"a": 2}', b'{"a": [3]}']
    assert split_records(b"x,1\ny,2\n") == [b"x,1", b"y,2"]


def test_a_delivery_streams_records_are_read_where_it_keeps_all_of_them() -> None:
    ext = {
        "Destinations": [
            {"ExtendedS3DestinationDescription": {"BucketARN": "arn:aws:s3:::b", "Prefix": "in/!{timestamp:yyyy}/"}}
        ]
    }
    d = destination_of(ext)
    assert d is not None and (d.bucket, d.prefix) == ("b", "in/")
    redshift = {
        "Destinations": [
            {"RedshiftDestinationDescription": {"S3DestinationDescription": {"BucketARN": "arn:aws:s3:::r"}}}
        ]
    }
    assert (destination_of(redshift) or d).bucket == "r"
    failed_only = {"Destinations": [{"HttpEndpointDestinationDescription": {"S3BackupMode": "FailedDataOnly",
                                     "S3DestinationDescription": {"BucketARN": "arn:aws:s3:::h"}}}]}  # fmt: skip
    assert destination_of(failed_only) is None
    all_data = {"Destinations": [{"HttpEndpointDestinationDescription": {"S3BackupMode": "AllData",
                                  "S3DestinationDescription": {"BucketARN": "arn:aws:s3:::h"}}}]}  # fmt: skip
    assert (destination_of(all_data) or d).bucket == "h"
