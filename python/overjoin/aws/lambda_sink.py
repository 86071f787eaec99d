"""A Lambda function as an output (a pump into a ``format = 'lambda'`` stream): KDA's ``LambdaOutput``
(its developer guide, "Using a Lambda Function as Output").

Each micro-batch's records are delivered in calls under Lambda's 6 MB request limit, with KDA's
event, so that a function written for KDA works unchanged::

    {"invocationId": "<uuid>", "applicationArn": "...",
     "records": [{"recordId": "<uuid>", "lambdaDeliveryRecordMetadata": {"retryHint": 0},
                  "data": "<base64 of the record>"}]}

The function answers ``{"records": [{"recordId": ..., "result": "Ok" | "DeliveryFailed"}]}``. Records
answered ``DeliveryFailed``, missing from the answer, or sent in a call that failed (an exception
in the function, a timeout) are sent again, with ``retryHint`` one more each time, up to
``max_attempts`` times; after that the write, and so the pump, fails (KDA retried for ever, holding
the application back; a FAILED pump says so in SHOW PUMPS, and ALTER PUMP ... START sends again).
A replayed micro-batch is delivered again: at least once, as KDA's.
"""

from __future__ import annotations

import base64
import uuid
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
)
from overjoin.aws.lambda_invoke import MAX_REQUEST_BYTES, backoff, function_name, give_up, invoke

__all__ = ["LambdaOptions", "deliver", "write"]

KNOWN = {
    **CONNECTION_OPTIONS,
    "function": "the function's name or ARN (with a version or alias, if one is to be used)",
    "application_arn": "the applicationArn of the events (default: an ARN naming the server)",
    "max_attempts": "deliveries of a record before the write fails (default 10)",
    "max_records": "records in one call (default 500)",
    "validate": "(ignored: the function is not called before the first delivery)",
}


@dataclass(frozen=True)
class LambdaOptions:
    function: str
    connection: Connection
    application_arn: str
    max_attempts: int
    max_records: int

    @staticmethod
    def parse(options: Mapping[str, str]) -> LambdaOptions:
        opts = options_without(options)
        unknown_options("lambda", opts, KNOWN)
        function = opts.get("function", "").strip()
        if not function:
            raise AwsError("lambda: option function is missing: give function = '<function name or ARN>'")
        connection = Connection.of("lambda", opts, function if arn_parts(function) else None)
        return LambdaOptions(
            function=function,
            connection=connection,
            application_arn=opts.get("application_arn")
            or f"arn:aws:kinesisanalytics:{connection.region}:000000000000:application/overjoin",
            max_attempts=int(number("lambda", opts, "max_attempts", "10")),
            max_records=int(number("lambda", opts, "max_records", "500")),
        )


def _calls(records: list[bytes], max_records: int) -> Iterator[list[int]]:
    """Indexes of the records, in calls of at most `max_records` records under the request limit."""
    call: list[int] = []
    size = 0
    for i, data in enumerate(records):
        entry = 4 * (len(data) + 2) // 3 + 150
        if entry > MAX_REQUEST_BYTES:
            raise AwsError(f"lambda: a record of {len(data):,} bytes is over Lambda's 6 MB request limit")
        if call and (len(call) >= max_records or size + entry > MAX_REQUEST_BYTES):
            yield call
            call, size = [], 0
        call.append(i)
        size += entry
    if call:
        yield call


def deliver(options: LambdaOptions, client: Any, records: list[bytes]) -> int:
    """Delivers every record, sending again what is not answered Ok; returns the calls made."""
    ids = [str(uuid.uuid4()) for _ in records]
    hints = [0] * len(records)
    pending = list(range(len(records)))
    calls = 0
    attempt = 0
    why = ""
    while pending:
        attempt += 1
        failed: list[int] = []
        for call in _calls([records[i] for i in pending], options.max_records):
            batch = [pending[j] for j in call]
            event = {
                "invocationId": str(uuid.uuid4()),
                "applicationArn": options.application_arn,
                "records": [
                    {
                        "recordId": ids[i],
                        "lambdaDeliveryRecordMetadata": {"retryHint": hints[i]},
                        "data": base64.b64encode(records[i]).decode("ascii"),
                    }
                    for i in batch
                ],
            }
            calls += 1
            answer = invoke(options.connection, client, options.function, event, "output")
            if answer.failure is not None:
                failed.extend(batch)
                why = answer.failure
                continue
            results = answer.body.get("records") if isinstance(answer.body, dict) else None
            if not isinstance(results, list):
                failed.extend(batch)
                why = "its answer has no records list"
                continue
            ok = {r.get("recordId") for r in results if isinstance(r, dict) and r.get("result") == "Ok"}
            not_ok = [i for i in batch if ids[i] not in ok]
            if not_ok:
                why = f"{len(not_ok)} record(s) answered DeliveryFailed or not answered"
            failed.extend(not_ok)
        for i in failed:
            hints[i] += 1
        pending = sorted(failed)
        if pending and attempt >= options.max_attempts:
            raise give_up("output", options.function, attempt, f"{len(pending)} record(s) not delivered: {why}")
        if pending:
            backoff(attempt)
    return calls


def write(options: LambdaOptions, rows: Iterator[Any]) -> tuple[int, int]:
    """Delivers the rows' ``value``; (records, calls)."""
    records: list[bytes] = []
    for row in rows:
        d = row.asDict() if hasattr(row, "asDict") else dict(row)
        value = d.get("value")
        if value is not None:
            records.append(value.encode("utf-8") if isinstance(value, str) else bytes(value))
    if not records:
        return 0, 0
    client = options.connection.client(attempts=3, read_timeout=900)
    return len(records), deliver(options, client, records)


def describe(options: LambdaOptions) -> str:
    return f"lambda function {function_name(options.function)!r} {options.connection.where()}"
