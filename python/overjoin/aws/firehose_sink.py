"""Writing records to a Firehose delivery stream (a pump into a ``format = 'firehose'`` stream): KDA's
``KinesisFirehoseOutput``.

Records go in PutRecordBatch requests within Firehose's limits (500 records, 4 MiB a request,
1,000 KiB a record); the records a response reports as failed (``FailedPutCount``, an
``ErrorCode`` in their entry) are sent again with backoff, up to ``max_put_attempts`` times, after
which the write, and so the pump, fails. A failed or replayed micro-batch is sent again: delivery
is at least once, as KDA's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from overjoin.aws.connection import (
    CONNECTION_OPTIONS,
    AwsError,
    Connection,
    arn_parts,
    number,
    options_without,
    unknown_options,
    worded,
)

__all__ = ["FirehoseOptions", "batches", "write"]

KNOWN = {
    **CONNECTION_OPTIONS,
    "delivery_stream": "the delivery stream's name or ARN",
    "max_put_attempts": "PutRecordBatch attempts for a record before the write fails (default 10)",
    "starting_position": "(reads) TRIM_HORIZON or LATEST (default LATEST)",
    "preprocessor": "(reads) a Lambda function (name or ARN) the records go through before they are read",
    "preprocessor_max_attempts": "(reads) calls of the preprocessor for one batch before the read fails (default 10)",
    "application_arn": "the applicationArn of the preprocessor's events",
    "max_objects": "(reads from S3) objects read in one micro-batch (default 1000)",
    "shard_group": "(reads a Kinesis source) k of n, as format = 'kinesis'",
    "validate": "check at load that the delivery stream exists (true/false, default false)",
}

MAX_RECORDS = 500
MAX_REQUEST_BYTES = 4 * 1024 * 1024
MAX_RECORD_BYTES = 1000 * 1024
_RETRIED = ("ServiceUnavailableException", "ServiceUnavailable", "ThrottlingException", "InternalFailure")


@dataclass(frozen=True)
class FirehoseOptions:
    delivery_stream: str
    connection: Connection
    max_put_attempts: int
    options: Mapping[str, str]

    @staticmethod
    def parse(options: Mapping[str, str]) -> FirehoseOptions:
        opts = options_without(options)
        unknown_options("firehose", opts, KNOWN)
        given = opts.get("delivery_stream", "").strip()
        if not given:
            raise AwsError("firehose: option delivery_stream is missing: give delivery_stream = '<name or ARN>'")
        parts = arn_parts(given)
        name = parts["resource"].split("/", 1)[-1] if parts else given
        return FirehoseOptions(
            delivery_stream=name,
            connection=Connection.of("firehose", opts, given if parts else None),
            max_put_attempts=int(number("firehose", opts, "max_put_attempts", "10")),
            options=opts,
        )

    def client(self, attempts: int = 5) -> Any:
        return self.connection.client(attempts)

    def error(self, error: BaseException, doing: str) -> AwsError:
        return worded(self.connection, f"delivery stream {self.delivery_stream!r}", error, doing, "delivery_stream")

    def describe(self) -> dict[str, Any]:
        """DescribeDeliveryStream's description, or a worded error."""
        try:
            desc: dict[str, Any] = self.client(attempts=1).describe_delivery_stream(
                DeliveryStreamName=self.delivery_stream
            )["DeliveryStreamDescription"]
        except Exception as error:
            raise self.error(error, "describing it") from error
        return desc


def batches(rows: Iterator[Any]) -> Iterator[list[dict[str, bytes]]]:
    """The rows' ``value`` as PutRecordBatch entries, in requests within Firehose's limits."""
    batch: list[dict[str, bytes]] = []
    size = 0
    for row in rows:
        d = row.asDict() if hasattr(row, "asDict") else dict(row)
        value = d.get("value")
        if value is None:
            continue
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        if len(data) > MAX_RECORD_BYTES:
            raise AwsError(
                f"firehose: a record of {len(data):,} bytes is over Firehose's limit of 1,000 KiB a record "
                f"(it starts {data[:60]!r})"
            )
        if batch and (len(batch) >= MAX_RECORDS or size + len(data) > MAX_REQUEST_BYTES):
            yield batch
            batch, size = [], 0
        batch.append({"Data": data})
        size += len(data)
    if batch:
        yield batch


def put_all(options: FirehoseOptions, client: Any, entries: list[dict[str, bytes]]) -> int:
    """PutRecordBatch of `entries`, resending the failed ones; the attempts made."""
    pending = entries
    attempt = 0
    while pending:
        attempt += 1
        try:
            resp = client.put_record_batch(DeliveryStreamName=options.delivery_stream, Records=pending)
            results = resp.get("RequestResponses", [])
            failed = [e for e, r in zip(pending, results) if r.get("ErrorCode")]
            reasons = {r.get("ErrorCode"): r.get("ErrorMessage") for r in results if r.get("ErrorCode")}
            if not failed and resp.get("FailedPutCount", 0) and len(results) != len(pending):
                failed, reasons = pending, {"FailedPutCount": str(resp.get("FailedPutCount"))}
        except Exception as error:
            code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
            if code not in _RETRIED:
                raise options.error(error, "PutRecordBatch") from error
            failed, reasons = pending, {code: str(error)}
        if not failed:
            return attempt
        if attempt >= options.max_put_attempts:
            raise AwsError(
                f"firehose: delivery stream {options.delivery_stream!r} {options.connection.where()}: {len(failed)} "
                f"record(s) still failed after {attempt} PutRecordBatch attempts: {reasons}"
            )
        pending = failed
        time.sleep(min(0.05 * 2**attempt, 2.0))
    return attempt


def write(options: FirehoseOptions, rows: Iterator[Any]) -> tuple[int, int]:
    """Sends the rows; (records, requests)."""
    client = None
    records = requests = 0
    for batch in batches(rows):
        if client is None:
            client = options.client()
        requests += put_all(options, client, batch)
        records += len(batch)
    return records, requests
