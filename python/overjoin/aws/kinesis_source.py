"""Reading a Kinesis data stream as a Spark stream (``format = 'kinesis'``).

**Offsets.** An offset is, per shard, the sequence number of the last record read (``after``), the
position reading started from when nothing was read yet (``start``: ``TRIM_HORIZON`` or
``AT_TIMESTAMP:<epoch seconds>``) and whether the shard is closed and read to its end (``closed``).
Spark keeps offsets in the query's checkpoint, so a restarted query reads on from the last committed
batch and replays an uncommitted one record for record (``readBetweenOffsets``). A shard made by a
split or a merge is read from its start once every parent it has in the offset is read to its end,
so records of one partition key are read in order. ``LATEST`` is the time of the first batch, kept in
every later offset (each shard's ``start``), so that a replay of the first batch, in this run or after
a restart, reads the records that batch read.

**Shard groups** (``shard_group = 'k of n'``): KDA's ``InputParallelism``, where an input's shards
are shared among ``n`` in-application streams ``<prefix>_001`` to ``<prefix>_00n``. Each stream
reads the shards whose number (the digits that end the shard id) is ``k - 1`` modulo ``n``, so
every shard is read by exactly one of them, evenly, and shards made later by a split or a merge
are shared the same way (a child in another group than its parent is read without waiting for it).

**Preprocessor** (``preprocessor = '<function name or ARN>'``): each read's records go through the
Lambda function first (:mod:`overjoin.aws.lambda_preprocessor`); a replayed batch goes through it
again.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
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
from overjoin.aws.lambda_preprocessor import Outcome, Preprocessor, SourceRecord

__all__ = ["SCHEMA", "KinesisOptions", "KinesisStreamReader", "ShardGroup", "check_stream", "starting_position"]

#: The columns of the rows read (the Firehose source gives the same).
SCHEMA = (
    "value BINARY, partition_key STRING, sequence_number STRING, shard_id STRING, "
    "approximate_arrival_timestamp TIMESTAMP, processing_error STRING"
)

KNOWN = {
    **CONNECTION_OPTIONS,
    "stream": "the Kinesis data stream's name or ARN",
    "starting_position": "TRIM_HORIZON, LATEST or AT_TIMESTAMP <ISO time or epoch seconds> (default LATEST)",
    "shard_group": "k of n: read the k-th of n groups of the shards (KDA's InputParallelism; default all shards)",
    "preprocessor": "a Lambda function (name or ARN) the records go through before they are read",
    "preprocessor_max_attempts": "calls of the preprocessor for one batch before the read fails (default 10)",
    "application_arn": "the applicationArn of the preprocessor's and Lambda outputs' events",
    "max_records_per_shard": "records read from one shard in one micro-batch (default 10000)",
    "max_put_attempts": "PutRecords attempts for a record before the write fails (default 10)",
    "partition_key": "(writes) the column whose value keys each record",
    "validate": "check at load that the stream exists (true/false, default false)",
}


@dataclass(frozen=True)
class ShardGroup:
    """The `index`-th (from 1) of `count` groups of a stream's shards."""

    index: int = 1
    count: int = 1

    @staticmethod
    def parse(text: str | None) -> ShardGroup:
        if not text:
            return ShardGroup()
        found = re.fullmatch(r"\s*(\d+)\s*(?:of|/)\s*(\d+)\s*", text, re.IGNORECASE)
        if not found or not 1 <= int(found.group(1)) <= int(found.group(2)) <= 64:
            raise AwsError(f"kinesis: option shard_group must be 'k of n' with 1 <= k <= n <= 64, not {text!r}")
        return ShardGroup(int(found.group(1)), int(found.group(2)))

    def holds(self, shard_id: str) -> bool:
        if self.count == 1:
            return True
        digits = re.search(r"(\d+)$", shard_id)
        n = int(digits.group(1)) if digits else zlib.crc32(shard_id.encode())
        return n % self.count == self.index - 1


@dataclass(frozen=True)
class KinesisOptions:
    """The data source's options, checked."""

    stream: str
    connection: Connection
    starting_position: str
    shard_group: ShardGroup
    preprocessor: str | None
    preprocessor_max_attempts: int
    application_arn: str
    max_records_per_shard: int
    max_put_attempts: int

    @staticmethod
    def parse(options: Mapping[str, str]) -> KinesisOptions:
        opts = options_without(options)
        unknown_options("kinesis", opts, KNOWN)
        given = opts.get("stream", "").strip()
        if not given:
            raise AwsError("kinesis: option stream is missing: give stream = '<Kinesis stream name or ARN>'")
        parts = arn_parts(given)
        stream = parts["resource"].split("/", 1)[-1] if parts else given
        connection = Connection.of("kinesis", opts, given if parts else None)
        return KinesisOptions(
            stream=stream,
            connection=connection,
            starting_position=starting_position(opts.get("starting_position", "LATEST")),
            shard_group=ShardGroup.parse(opts.get("shard_group")),
            preprocessor=opts.get("preprocessor") or None,
            preprocessor_max_attempts=int(number("kinesis", opts, "preprocessor_max_attempts", "10")),
            application_arn=opts.get("application_arn")
            or f"arn:aws:kinesisanalytics:{connection.region}:000000000000:application/overjoin",
            max_records_per_shard=int(number("kinesis", opts, "max_records_per_shard", "10000")),
            max_put_attempts=int(number("kinesis", opts, "max_put_attempts", "10")),
        )

    def client(self, attempts: int = 5) -> Any:
        return self.connection.client(attempts)

    def describe(self, what: str = "") -> str:
        return f"kinesis stream {self.stream!r} {self.connection.where()}{what}"

    def error(self, error: BaseException, doing: str) -> AwsError:
        return worded(self.connection, f"stream {self.stream!r}", error, doing, "stream")

    @property
    def stream_arn(self) -> str:
        return f"arn:aws:kinesis:{self.connection.region}:000000000000:stream/{self.stream}"


def starting_position(text: str) -> str:
    """``TRIM_HORIZON``, ``LATEST`` or ``AT_TIMESTAMP:<epoch seconds>``."""
    t = text.strip()
    upper = t.upper()
    if upper in ("TRIM_HORIZON", "LATEST"):
        return upper
    if upper.startswith("AT_TIMESTAMP"):
        rest = t[len("AT_TIMESTAMP") :].strip().lstrip(":=").strip()
        try:
            seconds = float(rest)
        except ValueError:
            try:
                when = datetime.fromisoformat(rest.replace("Z", "+00:00"))
            except ValueError:
                raise AwsError(
                    f"kinesis: option starting_position: cannot read the time in {text!r} "
                    "(write AT_TIMESTAMP 2024-01-01T00:00:00Z or AT_TIMESTAMP <epoch seconds>)"
                ) from None
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            seconds = when.timestamp()
        return f"AT_TIMESTAMP:{seconds}"
    raise AwsError(
        f"kinesis: option starting_position must be TRIM_HORIZON, LATEST or AT_TIMESTAMP <time>, not {text!r}"
    )


def check_stream(options: KinesisOptions) -> None:
    """Fails with a worded error unless the stream exists and answers (one attempt, short timeouts)."""
    client = options.client(attempts=1)
    try:
        summary = client.describe_stream_summary(StreamName=options.stream)["StreamDescriptionSummary"]
    except Exception as error:
        raise options.error(error, "describing it") from error
    status = summary.get("StreamStatus")
    if status not in ("ACTIVE", "UPDATING"):
        raise AwsError(f"kinesis: {options.describe()} is {status}, not ACTIVE")


def _shards(options: KinesisOptions, client: Any) -> list[dict[str, Any]]:
    shards: list[dict[str, Any]] = []
    try:
        resp = client.list_shards(StreamName=options.stream)
        shards.extend(resp.get("Shards", []))
        while resp.get("NextToken"):
            resp = client.list_shards(NextToken=resp["NextToken"])
            shards.extend(resp.get("Shards", []))
    except Exception as error:
        raise options.error(error, "listing its shards") from error
    return shards


def _parents(shard: Mapping[str, Any]) -> list[str]:
    return [p for p in (shard.get("ParentShardId"), shard.get("AdjacentParentShardId")) if p]


def _iterator(options: KinesisOptions, client: Any, shard: str, state: Mapping[str, Any]) -> str | None:
    kw: dict[str, Any] = {"StreamName": options.stream, "ShardId": shard}
    if state.get("after"):
        kw.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", StartingSequenceNumber=state["after"])
    elif str(state["start"]).startswith("AT_TIMESTAMP:"):
        seconds = float(str(state["start"]).split(":", 1)[1])
        kw.update(ShardIteratorType="AT_TIMESTAMP", Timestamp=datetime.fromtimestamp(seconds, tz=timezone.utc))
    else:
        kw.update(ShardIteratorType=state["start"])
    try:
        it: str | None = client.get_shard_iterator(**kw).get("ShardIterator")
    except Exception as error:
        raise options.error(error, f"getting an iterator of shard {shard}") from error
    return it


def _record(shard: str, record: Mapping[str, Any]) -> SourceRecord:
    arrival = record.get("ApproximateArrivalTimestamp")
    if isinstance(arrival, (int, float)):
        arrival = datetime.fromtimestamp(arrival, tz=timezone.utc)
    return SourceRecord(
        record_id=record["SequenceNumber"],
        data=bytes(record["Data"]),
        arrival=arrival,
        metadata={
            "shardId": shard,
            "partitionKey": record.get("PartitionKey"),
            "sequenceNumber": record["SequenceNumber"],
        },
    )


def preprocessor_connection(source: Connection, function: str) -> Connection:
    """How a source's preprocessor is reached: Lambda in the function's region (its ARN's, else the
    source's), with the source's credentials; the endpoint is Lambda's own (AWS_ENDPOINT_URL_LAMBDA...)."""
    opts: dict[str, str] = {"connect_timeout": str(source.connect_timeout), **dict(source.credentials)}
    if arn_parts(function) is None:
        opts["region"] = source.region
    return Connection.of("lambda", opts, function)


def rows_of(outcomes: list[Outcome]) -> list[tuple[Any, ...]]:
    """Spark rows (:data:`SCHEMA`) of records as read or preprocessed; dropped records give none."""
    rows = []
    for o in outcomes:
        if o.data is None:
            continue
        m = o.record.metadata
        rows.append(
            (o.data, m.get("partitionKey"), m.get("sequenceNumber"), m.get("shardId"), o.record.arrival, o.failure)
        )
    return rows


class KinesisStreamReader:
    """Reads the records after the offset's positions in the driver's Python worker (Kinesis gives
    no way to know where a shard ends without reading it, so the end offset is what was read).
    A :class:`pyspark.sql.datasource.SimpleDataSourceStreamReader` by its methods."""

    def __init__(self, options: KinesisOptions) -> None:
        self.options = options
        self._client: Any = None
        self._preprocessor: Preprocessor | None = None
        self._initial: dict | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.options.client()
        return self._client

    def rows(self, records: list[SourceRecord]) -> list[tuple[Any, ...]]:
        """The records' rows, through the preprocessor when there is one."""
        function = self.options.preprocessor
        if function is None or not records:
            return rows_of([Outcome(r, r.data) for r in records])
        if self._preprocessor is None:
            o = self.options
            self._preprocessor = Preprocessor(
                preprocessor_connection(o.connection, function),
                function,
                o.application_arn,
                o.stream_arn,
                "kinesis",
                o.preprocessor_max_attempts,
            )
        return rows_of(self._preprocessor.process(records))

    def initialOffset(self) -> dict:
        # Spark asks again for the first batch's start when it runs the batch: the same answer.
        if self._initial is None:
            self._initial = self._initial_offset()
        return self._initial

    def _initial_offset(self) -> dict:
        start = self.options.starting_position
        if start == "LATEST":
            # The records that arrive from now on, as a time: a replay of the first batch reads the
            # same records (a LATEST iterator would not).
            start = f"AT_TIMESTAMP:{time.time()}"
        listed = [s for s in _shards(self.options, self.client) if self.options.shard_group.holds(s["ShardId"])]
        shards = {s["ShardId"]: {"start": start, "after": None, "closed": False} for s in listed}
        return {"stream": self.options.stream, "shards": dict(sorted(shards.items()))}

    def _with_new_shards(self, offset: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """The offset's shards and this group's shards made since whose parents (of this group) are
        read to their end; and the ending sequence number of each closed shard."""
        states = {k: dict(v) for k, v in offset["shards"].items()}
        listed = _shards(self.options, self.client)
        ending = {
            s["ShardId"]: s["SequenceNumberRange"]["EndingSequenceNumber"]
            for s in listed
            if s.get("SequenceNumberRange", {}).get("EndingSequenceNumber") is not None
        }
        group = self.options.shard_group
        ours = {s["ShardId"] for s in listed if group.holds(s["ShardId"])}
        changed = True
        while changed:
            changed = False
            for s in listed:
                sid = s["ShardId"]
                if sid in states or sid not in ours:
                    continue
                parents = [p for p in _parents(s) if p in ours]
                if all(p in states and states[p]["closed"] for p in parents):
                    states[sid] = {"start": "TRIM_HORIZON", "after": None, "closed": False}
                    changed = True
        return dict(sorted(states.items())), ending

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        states, ending = self._with_new_shards(start)
        records: list[SourceRecord] = []
        for sid, state in states.items():
            if state["closed"]:
                continue
            got, last, closed = self._read_shard(sid, state, self.options.max_records_per_shard, None)
            records.extend(got)
            if last is not None:
                state["after"] = last
            # A shard a split or merge closed has an ending sequence number; once nothing more is
            # read from it (or the service ends its iterators) it is done.
            end = ending.get(sid)
            done_by_listing = end is not None and (
                not got or (state["after"] is not None and int(state["after"]) >= int(end))
            )
            state["closed"] = closed or done_by_listing
        return iter(self.rows(records)), {"stream": start.get("stream", self.options.stream), "shards": states}

    def _read_shard(
        self, sid: str, state: Mapping[str, Any], limit: int | None, until: str | None
    ) -> tuple[list[SourceRecord], str | None, bool]:
        """Records of shard `sid` after `state` (up to `limit`, or up to sequence number `until`):
        the records, the last sequence number read, whether the shard is closed and read to its end."""
        it = _iterator(self.options, self.client, sid, state)
        rows: list[SourceRecord] = []
        last: str | None = None
        empty_polls = 0
        if limit is None and until is None:
            limit = self.options.max_records_per_shard
        while it is not None:
            try:
                resp = self.client.get_records(ShardIterator=it, Limit=10000)
            except Exception as error:
                raise self.options.error(error, f"reading shard {sid}") from error
            records = resp.get("Records", [])
            for record in records:
                seq = record["SequenceNumber"]
                if until is not None and int(seq) > int(until):
                    return rows, last, False
                rows.append(_record(sid, record))
                last = seq
                if until is not None and int(seq) == int(until):
                    return rows, last, False
            it = resp.get("NextShardIterator")
            if limit is not None and len(rows) >= limit:
                return rows, last, False
            if not records:
                empty_polls += 1
                # An open shard answers empty pages until the records written; two in a row with
                # nothing behind the latest record mean there is nothing more now.
                if resp.get("MillisBehindLatest", 0) == 0 or empty_polls >= 5:
                    break
            else:
                empty_polls = 0
        return rows, last, it is None

    def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
        records: list[SourceRecord] = []
        for sid, to in end["shards"].items():
            state = start["shards"].get(sid) or {"start": to["start"], "after": None, "closed": False}
            if not state.get("after"):
                # Where reading the shard began is in the end offset: a start offset made again
                # (LATEST is a time, and a restarted query's initial offset is another) must not move it.
                state = {**state, "start": to["start"]}
            if state.get("closed") or not to.get("after") or to.get("after") == state.get("after"):
                continue
            got, last, _ = self._read_shard(sid, state, None, to["after"])
            if last != to["after"]:
                raise AwsError(
                    f"kinesis: {self.options.describe()}: replaying shard {sid} up to sequence number "
                    f"{to['after']} found {last} last: the records are no longer in the stream (past its retention?)"
                )
            records.extend(got)
        return iter(self.rows(records))

    def commit(self, end: dict) -> None:
        pass
