"""Writing records to a Kinesis data stream (a pump into a ``format = 'kinesis'`` stream).

Records go in PutRecords requests of at most 500 records and 5 MB, resending the records a response
reports as failed (throttled) with backoff; a batch that still fails after ``max_put_attempts``
fails the write. A failed or replayed micro-batch is sent again: delivery is at least once.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator
from typing import Any

from overjoin.aws.connection import AwsError
from overjoin.aws.kinesis_source import KinesisOptions

__all__ = ["entries", "put_all"]

_PUT_MAX_RECORDS = 500
_PUT_MAX_BYTES = 5 * 1024 * 1024
_RETRIED = ("ProvisionedThroughputExceededException", "InternalFailure", "ServiceUnavailable", "LimitExceededException")


def put_all(options: KinesisOptions, client: Any, entries: list[dict[str, Any]]) -> int:
    """PutRecords of `entries` (at most 500), resending failed ones; returns the attempts made."""
    pending = entries
    attempt = 0
    while pending:
        attempt += 1
        try:
            resp = client.put_records(StreamName=options.stream, Records=pending)
            results = resp.get("Records", [])
            failed = [e for e, r in zip(pending, results) if r.get("ErrorCode")]
            reasons = {r.get("ErrorCode"): r.get("ErrorMessage") for r in results if r.get("ErrorCode")}
        except Exception as error:
            code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
            if code not in _RETRIED:
                raise options.error(error, "PutRecords") from error
            failed, reasons = pending, {code: str(error)}
        if not failed:
            return attempt
        if attempt >= options.max_put_attempts:
            raise AwsError(
                f"kinesis: {options.describe()}: {len(failed)} record(s) still failed after {attempt} "
                f"PutRecords attempts: {reasons}"
            )
        pending = failed
        time.sleep(min(0.05 * 2**attempt, 2.0))
    return attempt


def entries(rows: Iterator[Any]) -> Iterator[list[dict[str, Any]]]:
    """The rows (``value``, optional ``partition_key``) as PutRecords entries, in requests of at most
    500 records and 5 MB."""
    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        d = row.asDict() if hasattr(row, "asDict") else dict(row)
        value = d.get("value")
        if value is None:
            continue
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        key = d.get("partition_key") or str(zlib.crc32(data))
        key = str(key)[:256]
        entry_size = len(data) + len(key.encode("utf-8"))
        if batch and (len(batch) >= _PUT_MAX_RECORDS or size + entry_size > _PUT_MAX_BYTES):
            yield batch
            batch, size = [], 0
        batch.append({"Data": data, "PartitionKey": key})
        size += entry_size
    if batch:
        yield batch


def write(options: KinesisOptions, rows: Iterator[Any]) -> tuple[int, int]:
    """Sends the rows; (records, requests). The client is made for the first request: a partition
    without rows (an empty batch of a stateful pump) sends nothing and makes none."""
    client = None
    records = requests = 0
    for batch in entries(rows):
        if client is None:
            client = options.client()
        requests += put_all(options, client, batch)
        records += len(batch)
    return records, requests
