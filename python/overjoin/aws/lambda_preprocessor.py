"""A Lambda function that transforms records before they are read: Kinesis Data Analytics'
``InputLambdaProcessor`` (its developer guide, "Preprocessing Data Using a Lambda Function").

The function gets KDA's event, with the records of one read in batches under Lambda's 6 MB limit::

    {"invocationId": "<uuid>", "applicationArn": "...", "streamArn": "...",
     "records": [{"recordId": "<sequence number>", "data": "<base64>",
                  "kinesisStreamRecordMetadata": {"shardId": ..., "partitionKey": ...,
                      "sequenceNumber": ..., "approximateArrivalTimestamp": <epoch seconds>}}]}

(``kinesisFirehoseRecordMetadata: {"approximateArrivalTimestamp": ...}`` for a Firehose source) and
answers ``{"records": [{"recordId": ..., "result": "Ok" | "Dropped" | "ProcessingFailed", "data":
"<base64>"}]}`` for every record. ``Ok`` records are read with the returned data (which may hold
several JSON documents or CSV rows), ``Dropped`` ones are left out, ``ProcessingFailed`` ones go to
``error_stream`` as they came. An answer that misses a record, repeats one, has another result or
no data for an ``Ok`` record, or a function that fails, is retried with the same records (KDA's
rule); after ``preprocessor_max_attempts`` attempts the read fails, and with it the pump.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from overjoin.aws.connection import Connection
from overjoin.aws.lambda_invoke import MAX_REQUEST_BYTES, backoff, give_up, invoke

__all__ = ["Outcome", "Preprocessor", "SourceRecord"]

_RESULTS = ("Ok", "Dropped", "ProcessingFailed")


@dataclass(frozen=True)
class SourceRecord:
    """A record as read, before the preprocessor: its id, bytes, arrival and source metadata."""

    record_id: str
    data: bytes
    arrival: datetime | None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What becomes of a record: its new data (None: dropped), or why it failed."""

    record: SourceRecord
    data: bytes | None
    failure: str | None = None


@dataclass
class Preprocessor:
    """Sends records through `function`; `source` is ``kinesis`` or ``firehose``."""

    connection: Connection
    function: str
    application_arn: str
    stream_arn: str
    source: str
    max_attempts: int = 10
    max_records: int = 500
    _client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.connection.client(attempts=3, read_timeout=900)
        return self._client

    def process(self, records: Sequence[SourceRecord]) -> list[Outcome]:
        """Every record's outcome, in order."""
        out: list[Outcome] = []
        for batch in self._batches(records):
            out.extend(self._one(batch))
        return out

    def _batches(self, records: Sequence[SourceRecord]) -> Iterator[list[SourceRecord]]:
        batch: list[SourceRecord] = []
        size = 0
        for r in records:
            entry = 4 * (len(r.data) + 2) // 3 + 300
            if batch and (len(batch) >= self.max_records or size + entry > MAX_REQUEST_BYTES):
                yield batch
                batch, size = [], 0
            batch.append(r)
            size += entry
        if batch:
            yield batch

    @staticmethod
    def _unique_ids(batch: list[SourceRecord]) -> list[SourceRecord]:
        """The batch with ids unique within it: a Kinesis sequence number is unique within its
        shard only, so a record whose number another shard's record has gets its shard's id too."""
        seen: set[str] = set()
        out = []
        for r in batch:
            rid = r.record_id
            if rid in seen:
                rid = f"{r.metadata.get('shardId', '')}-{r.record_id}"
                n = 2
                while rid in seen:
                    rid, n = f"{r.metadata.get('shardId', '')}-{r.record_id}-{n}", n + 1
            seen.add(rid)
            out.append(r if rid == r.record_id else SourceRecord(rid, r.data, r.arrival, r.metadata))
        return out

    def _event(self, batch: list[SourceRecord]) -> dict[str, Any]:
        def meta(r: SourceRecord) -> dict[str, Any]:
            arrival = int(r.arrival.timestamp()) if r.arrival is not None else None
            if self.source == "kinesis":
                return {"kinesisStreamRecordMetadata": {**r.metadata, "approximateArrivalTimestamp": arrival}}
            return {"kinesisFirehoseRecordMetadata": {"approximateArrivalTimestamp": arrival}}

        return {
            "invocationId": str(uuid.uuid4()),
            "applicationArn": self.application_arn,
            "streamArn": self.stream_arn,
            "records": [
                {"recordId": r.record_id, "data": base64.b64encode(r.data).decode("ascii"), **meta(r)} for r in batch
            ],
        }

    def _one(self, records: list[SourceRecord]) -> list[Outcome]:
        batch = self._unique_ids(records)
        why = ""
        for attempt in range(1, self.max_attempts + 1):
            answer = invoke(self.connection, self.client, self.function, self._event(batch), "preprocessor")
            if answer.failure is None:
                outcomes, why = self._read(batch, answer.body)
                if outcomes is not None:
                    # Each outcome with the record as it was read (its own id).
                    return [Outcome(r, o.data, o.failure) for r, o in zip(records, outcomes)]
            else:
                why = answer.failure
            if attempt < self.max_attempts:
                backoff(attempt)
        raise give_up("preprocessor", self.function, self.max_attempts, why)

    def _read(self, batch: list[SourceRecord], body: Any) -> tuple[list[Outcome] | None, str]:
        """The outcomes an answer gives, or None and why the answer is not acceptable."""
        answered = body.get("records") if isinstance(body, dict) else None
        if not isinstance(answered, list):
            return None, "its answer has no records list"
        by_id: dict[str, dict[str, Any]] = {}
        for item in answered:
            if not isinstance(item, dict) or not isinstance(item.get("recordId"), str):
                return None, "an answered record has no recordId"
            if item["recordId"] in by_id:
                return None, f"record {item['recordId']} is answered twice"
            by_id[item["recordId"]] = item
        outcomes: list[Outcome] = []
        for r in batch:
            item = by_id.pop(r.record_id, None)
            if item is None:
                return None, f"record {r.record_id} is missing from the answer (every record sent must be answered)"
            result = item.get("result")
            if result not in _RESULTS:
                return None, f"record {r.record_id} has result {result!r}, not Ok, Dropped or ProcessingFailed"
            if result == "Dropped":
                outcomes.append(Outcome(r, None))
            elif result == "ProcessingFailed":
                outcomes.append(Outcome(r, r.data, f"the preprocessor {self.function} answered ProcessingFailed"))
            else:
                data = item.get("data")
                if not isinstance(data, str):
                    return None, f"record {r.record_id} is Ok but has no data"
                try:
                    outcomes.append(Outcome(r, base64.b64decode(data, validate=True)))
                except ValueError:
                    return None, f"the data of record {r.record_id} is not base64"
        if by_id:
            return None, f"the answer has records that were not sent ({', '.join(sorted(by_id)[:3])})"
        return outcomes, ""
