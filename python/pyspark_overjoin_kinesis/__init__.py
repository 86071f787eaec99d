"""Amazon Kinesis Data Streams as a Spark data source named ``kinesis`` (read as a stream, written in
batches or as a stream), for overjoin's ``CREATE STREAM ... WITH (format = 'kinesis', ...)``.

Spark 4 registers every importable top-level module named ``pyspark_*`` whose ``DefaultSource`` is a
:class:`pyspark.sql.datasource.DataSource`, in any session, the server's JVM driver included (its
Python workers must run a Python that has this package and boto3: ``overjoin server`` sets
``PYSPARK_PYTHON`` to its own). It can also be used without overjoin::

    spark.readStream.format("kinesis").option("stream", "orders").option("region", "us-east-1").load()

Rows read have the columns of :data:`SCHEMA`: the record's bytes (``value``), its partition key,
sequence number, shard and ``approximate_arrival_timestamp``. overjoin decodes ``value`` into the
stream's declared columns (docs/server.md). Rows written need a ``value`` column (STRING or BINARY)
and may have a ``partition_key`` column (STRING).

**Offsets.** An offset is, per shard, the sequence number of the last record read (``after``), the
position reading started from when nothing was read yet (``start``: ``TRIM_HORIZON`` or
``AT_TIMESTAMP:<epoch seconds>``) and whether the shard is closed and read to its end (``closed``).
Spark keeps offsets in the query's checkpoint, so a restarted query reads on from the last committed
batch and replays an uncommitted one record for record (``readBetweenOffsets``). A shard made by a
split or a merge is read from its start once every parent it has in the offset is read to its end,
so records of one partition key are read in order.

**Writes** use PutRecords in requests of at most 500 records (and 5 MB), resending the records a
response reports as failed (throttled) with backoff; a batch that still fails after the retries fails
the write. A failed or replayed batch is sent again: delivery is at least once. Writers run on the
executors; without credentials in the options they use those boto3 finds where the write is planned
(the driver), so executors of a cluster need no AWS configuration of their own.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceStreamWriter,
    DataSourceWriter,
    SimpleDataSourceStreamReader,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

__all__ = ["SCHEMA", "DefaultSource", "KinesisOptions"]

#: The columns of the rows read.
SCHEMA = (
    "value BINARY, partition_key STRING, sequence_number STRING, shard_id STRING, "
    "approximate_arrival_timestamp TIMESTAMP"
)

_KNOWN = {
    "stream": "the Kinesis data stream's name",
    "region": "the AWS region (default: AWS_REGION / AWS_DEFAULT_REGION, else us-east-1)",
    "endpoint": "the endpoint URL (default: the region's)",
    "starting_position": "TRIM_HORIZON, LATEST or AT_TIMESTAMP <ISO time or epoch seconds> (default LATEST)",
    "aws_access_key_id": "credentials (default: boto3's chain: environment, profile, instance role)",
    "aws_secret_access_key": "credentials",
    "aws_session_token": "credentials",
    "max_records_per_shard": "records read from one shard in one micro-batch (default 10000)",
    "max_put_attempts": "PutRecords attempts for a record before the write fails (default 10)",
    "connect_timeout": "seconds to wait for the endpoint to accept a connection (default 5)",
    "validate": "check at load that the stream exists (true/false, default false)",
}
_PUT_MAX_RECORDS = 500
_PUT_MAX_BYTES = 5 * 1024 * 1024


class KinesisSourceError(ValueError):
    """A problem with the options or the stream, worded for the user (``kinesis:`` prefix)."""


@dataclass(frozen=True)
class KinesisOptions:
    """The data source's options, checked."""

    stream: str
    region: str
    endpoint: str | None
    starting_position: str
    credentials: Mapping[str, str]
    max_records_per_shard: int
    max_put_attempts: int
    connect_timeout: float

    @staticmethod
    def parse(options: Mapping[str, str]) -> KinesisOptions:
        import os

        opts = {k.lower(): v for k, v in options.items()}
        # Options Spark or overjoin add for every source (path from a table, overjoin's own).
        for k in list(opts):
            if k in ("path",) or k.startswith("overjoin."):
                opts.pop(k)
        unknown = sorted(set(opts) - set(_KNOWN))
        if unknown:
            raise KinesisSourceError(
                f"kinesis: unknown option {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN))})"
            )
        stream = opts.get("stream", "").strip()
        if not stream:
            raise KinesisSourceError("kinesis: option stream is missing: give stream = '<Kinesis stream name>'")
        region = opts.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        position = _starting_position(opts.get("starting_position", "LATEST"))
        creds: dict[str, str] = {
            k: opts[k] for k in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token") if k in opts
        }

        def number(key: str, default: str) -> float:
            text = opts.get(key, default)
            try:
                value = float(text)
            except ValueError:
                raise KinesisSourceError(f"kinesis: option {key} must be a number, not {text!r}") from None
            if value <= 0:
                raise KinesisSourceError(f"kinesis: option {key} must be positive, not {text!r}")
            return value

        return KinesisOptions(
            stream=stream,
            region=region or "us-east-1",
            endpoint=opts.get("endpoint") or None,
            starting_position=position,
            credentials=creds,
            max_records_per_shard=int(number("max_records_per_shard", "10000")),
            max_put_attempts=int(number("max_put_attempts", "10")),
            connect_timeout=number("connect_timeout", "5"),
        )

    def client(self, attempts: int = 5) -> Any:
        import boto3
        from botocore.config import Config

        config = Config(
            connect_timeout=self.connect_timeout,
            read_timeout=30,
            retries={"max_attempts": attempts, "mode": "standard"},
        )
        return boto3.client(
            "kinesis", region_name=self.region, endpoint_url=self.endpoint, config=config, **self.credentials
        )

    def describe(self, what: str = "") -> str:
        where = f" at {self.endpoint}" if self.endpoint else ""
        return f"kinesis stream {self.stream!r} ({self.region}{where}){what}"


def _starting_position(text: str) -> str:
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
                raise KinesisSourceError(
                    f"kinesis: option starting_position: cannot read the time in {text!r} "
                    "(write AT_TIMESTAMP 2024-01-01T00:00:00Z or AT_TIMESTAMP <epoch seconds>)"
                ) from None
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            seconds = when.timestamp()
        return f"AT_TIMESTAMP:{seconds}"
    raise KinesisSourceError(
        f"kinesis: option starting_position must be TRIM_HORIZON, LATEST or AT_TIMESTAMP <time>, not {text!r}"
    )


#: Error codes of refused credentials: Kinesis's (UnrecognizedClientException for an unknown key,
#: InvalidSignatureException for a wrong secret) and the generic AWS ones some endpoints answer with.
_CREDENTIAL_CODES = {
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "IncompleteSignatureException",
    "MissingAuthenticationTokenException",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
}
_DENIED_CODES = {"AccessDeniedException", "AccessDenied"}


def _error(options: KinesisOptions, error: BaseException, doing: str) -> KinesisSourceError:
    """A boto/botocore error as one line that names the stream and what to check."""
    import re

    name = type(error).__name__
    code = ""
    status = 0
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code = str(response.get("Error", {}).get("Code", ""))
        status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
    text = str(error)
    if code.isdigit():
        # An endpoint that answered in XML (moto does, for a JSON service): its code is in the body.
        found = re.search(r"<Code>(\w+)</Code>", text)
        code = found.group(1) if found else code
        found = re.search(r"<Message>([^<]*)</Message>", text)
        text = f"{code}: {found.group(1)}" if found else text
    if code == "ResourceNotFoundException":
        hint = "it does not exist: create it, or fix the options stream/region/endpoint"
    elif name in ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError", "ReadTimeoutError"):
        hint = "the endpoint does not answer: check the option endpoint (and region) and the network"
    elif name in ("NoCredentialsError", "PartialCredentialsError") or code in _CREDENTIAL_CODES:
        hint = (
            f"the credentials are missing or refused ({code or name}): fix the options "
            "aws_access_key_id/aws_secret_access_key (and aws_session_token), or the server's AWS_* "
            "environment or profile they default to"
        )
    elif code in _DENIED_CODES or status == 403:
        hint = (
            f"the credentials are not allowed to do this ({code or status}): grant them the Kinesis "
            "actions on this stream, or give other ones with the options aws_access_key_id/aws_secret_access_key"
        )
    else:
        hint = "see the cause"
    cause = " ".join(text.split())[:300]
    return KinesisSourceError(f"kinesis: {options.describe()}: {doing} failed: {hint} ({name}: {cause})")


# ---- reading ------------------------------------------------------------------------------------


def _shards(options: KinesisOptions, client: Any) -> list[dict[str, Any]]:
    shards: list[dict[str, Any]] = []
    try:
        resp = client.list_shards(StreamName=options.stream)
        shards.extend(resp.get("Shards", []))
        while resp.get("NextToken"):
            resp = client.list_shards(NextToken=resp["NextToken"])
            shards.extend(resp.get("Shards", []))
    except Exception as error:
        raise _error(options, error, "listing its shards") from error
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
        raise _error(options, error, f"getting an iterator of shard {shard}") from error
    return it


def _row(shard: str, record: Mapping[str, Any]) -> tuple[Any, ...]:
    arrival = record.get("ApproximateArrivalTimestamp")
    if isinstance(arrival, (int, float)):
        arrival = datetime.fromtimestamp(arrival, tz=timezone.utc)
    return (
        bytes(record["Data"]),
        record.get("PartitionKey"),
        record["SequenceNumber"],
        shard,
        arrival,
    )


class KinesisStreamReader(SimpleDataSourceStreamReader):
    """Reads the records after the offset's positions in the driver's Python worker (Kinesis gives
    no way to know where a shard ends without reading it, so the end offset is what was read)."""

    def __init__(self, options: KinesisOptions) -> None:
        self.options = options
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.options.client()
        return self._client

    def initialOffset(self) -> dict:
        start = self.options.starting_position
        if start == "LATEST":
            # The records that arrive from now on, as a time: a replay of the first batch reads the
            # same records (a LATEST iterator would not).
            start = f"AT_TIMESTAMP:{time.time()}"
        listed = _shards(self.options, self.client)
        shards = {s["ShardId"]: {"start": start, "after": None, "closed": False} for s in listed}
        return {"stream": self.options.stream, "shards": dict(sorted(shards.items()))}

    def _with_new_shards(self, offset: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """The offset's shards and the shards made since whose parents are read to their end; and
        the ending sequence number of each closed shard."""
        states = {k: dict(v) for k, v in offset["shards"].items()}
        listed = _shards(self.options, self.client)
        ending = {
            s["ShardId"]: s["SequenceNumberRange"]["EndingSequenceNumber"]
            for s in listed
            if s.get("SequenceNumberRange", {}).get("EndingSequenceNumber") is not None
        }
        known = {s["ShardId"] for s in listed}
        changed = True
        while changed:
            changed = False
            for s in listed:
                sid = s["ShardId"]
                if sid in states:
                    continue
                parents = [p for p in _parents(s) if p in states or p in known]
                if all(p in states and states[p]["closed"] for p in parents):
                    states[sid] = {"start": "TRIM_HORIZON", "after": None, "closed": False}
                    changed = True
        return dict(sorted(states.items())), ending

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        states, ending = self._with_new_shards(start)
        rows: list[tuple[Any, ...]] = []
        for sid, state in states.items():
            if state["closed"]:
                continue
            got, last, closed = self._read_shard(sid, state, self.options.max_records_per_shard, None)
            rows.extend(got)
            if last is not None:
                state["after"] = last
            # A shard a split or merge closed has an ending sequence number; once nothing more is
            # read from it (or the service ends its iterators) it is done.
            end = ending.get(sid)
            done_by_listing = end is not None and (
                not got or (state["after"] is not None and int(state["after"]) >= int(end))
            )
            state["closed"] = closed or done_by_listing
        return iter(rows), {"stream": start.get("stream", self.options.stream), "shards": states}

    def _read_shard(
        self, sid: str, state: Mapping[str, Any], limit: int | None, until: str | None
    ) -> tuple[list[tuple[Any, ...]], str | None, bool]:
        """Records of shard `sid` after `state` (up to `limit`, or up to sequence number `until`):
        the rows, the last sequence number read, whether the shard is closed and read to its end."""
        it = _iterator(self.options, self.client, sid, state)
        rows: list[tuple[Any, ...]] = []
        last: str | None = None
        empty_polls = 0
        if limit is None and until is None:
            limit = self.options.max_records_per_shard
        while it is not None:
            try:
                resp = self.client.get_records(ShardIterator=it, Limit=10000)
            except Exception as error:
                raise _error(self.options, error, f"reading shard {sid}") from error
            records = resp.get("Records", [])
            for record in records:
                seq = record["SequenceNumber"]
                if until is not None and int(seq) > int(until):
                    return rows, last, False
                rows.append(_row(sid, record))
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
        rows: list[tuple[Any, ...]] = []
        for sid, to in end["shards"].items():
            state = start["shards"].get(sid) or {"start": to["start"], "after": None, "closed": False}
            if state.get("closed") or not to.get("after") or to.get("after") == state.get("after"):
                continue
            got, last, _ = self._read_shard(sid, state, None, to["after"])
            if last != to["after"]:
                raise KinesisSourceError(
                    f"kinesis: {self.options.describe()}: replaying shard {sid} up to sequence number "
                    f"{to['after']} found {last} last: the records are no longer in the stream (past its retention?)"
                )
            rows.extend(got)
        return iter(rows)

    def commit(self, end: dict) -> None:
        pass


# ---- writing ------------------------------------------------------------------------------------


def _put_all(options: KinesisOptions, client: Any, entries: list[dict[str, Any]]) -> int:
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
            if code not in ("ProvisionedThroughputExceededException", "InternalFailure", "ServiceUnavailable"):
                raise _error(options, error, "PutRecords") from error
            failed, reasons = pending, {code: str(error)}
        if not failed:
            return attempt
        if attempt >= options.max_put_attempts:
            raise KinesisSourceError(
                f"kinesis: {options.describe()}: {len(failed)} record(s) still failed after {attempt} "
                f"PutRecords attempts: {reasons}"
            )
        pending = failed
        time.sleep(min(0.05 * 2**attempt, 2.0))
    return attempt


def _entries(rows: Iterator[Any]) -> Iterator[list[dict[str, Any]]]:
    """The rows as PutRecords entries, in requests of at most 500 records and 5 MB."""
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


@dataclass
class KinesisCommitMessage(WriterCommitMessage):
    records: int
    requests: int


def _with_server_credentials(options: KinesisOptions) -> KinesisOptions:
    """`options` with the credentials boto3's chain finds where this runs (the server), when the
    options give none. Writers run on executors, which on a cluster have neither the server's
    environment nor its profile: they get the credentials the server reads with, frozen when the
    micro-batch's write is planned (a temporary role's are fresh for each batch)."""
    if options.credentials:
        return options
    import dataclasses

    import boto3

    try:
        found = boto3.Session(region_name=options.region).get_credentials()
    except Exception:  # no usable chain here: the executors look for themselves
        return options
    if found is None:
        return options
    frozen = found.get_frozen_credentials()
    creds = {"aws_access_key_id": frozen.access_key, "aws_secret_access_key": frozen.secret_key}
    if frozen.token:
        creds["aws_session_token"] = frozen.token
    return dataclasses.replace(options, credentials=creds)


class KinesisWriter(DataSourceWriter):
    def __init__(self, options: KinesisOptions) -> None:
        self.options = options

    def write(self, iterator: Iterator[Any]) -> KinesisCommitMessage:
        # The client is made for the first request: a partition without rows (an empty batch of a
        # stateful pump) sends nothing and makes none.
        client = None
        records = requests = 0
        for batch in _entries(iterator):
            if client is None:
                client = self.options.client()
            requests += _put_all(self.options, client, batch)
            records += len(batch)
        return KinesisCommitMessage(records, requests)


class KinesisStreamWriter(DataSourceStreamWriter):
    def __init__(self, options: KinesisOptions) -> None:
        self.options = options

    def write(self, iterator: Iterator[Any]) -> KinesisCommitMessage:
        return KinesisWriter(self.options).write(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        pass

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        pass


def check_stream(options: KinesisOptions) -> None:
    """Fails with a worded error unless the stream exists and answers (one attempt, short timeouts)."""
    client = options.client(attempts=1)
    try:
        summary = client.describe_stream_summary(StreamName=options.stream)["StreamDescriptionSummary"]
    except Exception as error:
        raise _error(options, error, "describing it") from error
    status = summary.get("StreamStatus")
    if status not in ("ACTIVE", "UPDATING"):
        raise KinesisSourceError(f"kinesis: {options.describe()} is {status}, not ACTIVE")


class DefaultSource(DataSource):
    """``format("kinesis")``: see the module's documentation."""

    @classmethod
    def name(cls) -> str:
        return "kinesis"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.parsed = KinesisOptions.parse(options)

    def schema(self) -> str:
        if str(self.options.get("validate", "false")).lower() == "true":
            check_stream(self.parsed)
        return SCHEMA

    def simpleStreamReader(self, schema: StructType) -> KinesisStreamReader:
        return KinesisStreamReader(self.parsed)

    def writer(self, schema: StructType, overwrite: bool) -> KinesisWriter:
        _check_write_schema(schema)
        return KinesisWriter(_with_server_credentials(self.parsed))

    def streamWriter(self, schema: StructType, overwrite: bool) -> KinesisStreamWriter:
        _check_write_schema(schema)
        return KinesisStreamWriter(_with_server_credentials(self.parsed))


def _check_write_schema(schema: StructType) -> None:
    names = [f.name.lower() for f in schema.fields]
    if "value" not in names:
        raise KinesisSourceError(
            f"kinesis: rows written need a value column (STRING or BINARY), and may have partition_key; "
            f"they have {', '.join(schema.fieldNames())}"
        )
