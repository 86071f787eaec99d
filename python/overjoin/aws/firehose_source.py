"""Reading what a Firehose delivery stream carries (``format = 'firehose'``): KDA's
``KinesisFirehoseInput``.

KDA read a delivery stream's records directly, through an interface of its own; Firehose has no
public API that reads a delivery stream. So overjoin reads what the delivery stream carries, found
with DescribeDeliveryStream (docs/server.md, "Firehose inputs"):

* a delivery stream **with a Kinesis data stream as its source** (``KinesisStreamAsSource``): that
  Kinesis stream, record for record, with Kinesis's offsets (:mod:`overjoin.aws.kinesis_source`);
* otherwise **the objects it delivers to S3** (its S3 or extended S3 destination, a Redshift
  destination's intermediate S3 objects, or another destination's S3 backup of all records): each
  new object under its prefix, in the order of their keys, one row per object (its records, which
  Firehose concatenates, are the rows KDA read: JSON documents or CSV rows, split when the stream's
  records are decoded). Rows then come with the delivery stream's buffering (60 s or more, unless
  it is set lower), and ``approximate_arrival_timestamp`` is the object's time. Objects compressed
  with GZIP are decompressed.

**Offsets (S3).** The keys read recently (with their times) and a floor key: every key at or below
the floor has been read or is older than the objects still expected. A batch lists the keys after
the floor and reads those it has not read, so an object that lands with a key below a newer one
(two deliveries in one second) is still read, once. A replayed batch reads the same keys again.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from overjoin.aws.connection import AwsError, Connection, arn_parts, number, worded
from overjoin.aws.firehose_sink import FirehoseOptions
from overjoin.aws.kinesis_source import KinesisOptions, KinesisStreamReader, preprocessor_connection, rows_of
from overjoin.aws.lambda_preprocessor import Outcome, Preprocessor, SourceRecord

__all__ = ["FirehoseStreamReader", "S3Destination", "destination_of", "split_records"]

#: How long an object may take to appear after a newer one (its key is still looked for that long).
LATE_SECONDS = 600


class S3Destination:
    """Where a delivery stream's objects land: a bucket and the literal start of their keys."""

    def __init__(self, bucket: str, prefix: str) -> None:
        self.bucket = bucket
        # Firehose's prefix may hold expressions (!{timestamp:yyyy}): keys are listed under its literal start.
        self.prefix = prefix.split("!{", 1)[0]


def destination_of(desc: dict[str, Any]) -> S3Destination | None:
    """The S3 objects that hold every record the delivery stream delivers, if any."""
    for d in desc.get("Destinations", []):
        for key in ("ExtendedS3DestinationDescription", "S3DestinationDescription"):
            s3 = d.get(key)
            if s3 and s3.get("BucketARN"):
                return S3Destination(s3["BucketARN"].split(":::", 1)[-1], s3.get("Prefix") or "")
        redshift = d.get("RedshiftDestinationDescription")
        if redshift and redshift.get("S3DestinationDescription"):
            s3 = redshift["S3DestinationDescription"]
            return S3Destination(s3["BucketARN"].split(":::", 1)[-1], s3.get("Prefix") or "")
        for other in d.values():
            if isinstance(other, dict) and str(other.get("S3BackupMode", "")).startswith("All"):
                s3 = other.get("S3DestinationDescription") or other.get("S3BackupDescription")
                if s3 and s3.get("BucketARN"):
                    return S3Destination(s3["BucketARN"].split(":::", 1)[-1], s3.get("Prefix") or "")
    return None


def split_records(payload: bytes) -> list[bytes]:
    """The records Firehose concatenated into an object: its JSON documents, else its lines."""
    text = payload.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    out: list[bytes] = []
    i = 0
    try:
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            _, end = decoder.raw_decode(text, i)
            out.append(text[i:end].encode("utf-8"))
            i = end
        return out
    except ValueError:
        return [line.encode("utf-8") for line in text.splitlines() if line.strip()]


class FirehoseStreamReader:
    """Reads a delivery stream's records (see the module); a SimpleDataSourceStreamReader by its methods."""

    def __init__(self, options: FirehoseOptions) -> None:
        self.options = options
        desc = options.describe()
        self.arn = desc.get("DeliveryStreamARN") or (
            f"arn:aws:firehose:{options.connection.region}:000000000000:deliverystream/{options.delivery_stream}"
        )
        opts = options.options
        source = (desc.get("Source") or {}).get("KinesisStreamSourceDescription") or {}
        self.kinesis: KinesisStreamReader | None = None
        self.s3: S3Destination | None = None
        self._initial: dict | None = None
        if source.get("KinesisStreamARN"):
            inner = {k: v for k, v in opts.items() if k in ("starting_position", "shard_group", "preprocessor",
                     "preprocessor_max_attempts", "application_arn", "aws_access_key_id", "aws_secret_access_key",
                     "aws_session_token", "connect_timeout")}  # fmt: skip
            self.kinesis = KinesisStreamReader(KinesisOptions.parse({**inner, "stream": source["KinesisStreamARN"]}))
            return
        self.s3 = destination_of(desc)
        if self.s3 is None:
            raise AwsError(
                f"firehose: delivery stream {options.delivery_stream!r} keeps no copy of every record that overjoin "
                "can read: it has no Kinesis data stream source and delivers all its records to no S3 bucket. "
                "Give it a Kinesis data stream as its source (and its producers that stream), or an S3 destination "
                "or backup of all records (docs/server.md, Firehose inputs)"
            )
        if opts.get("shard_group"):
            raise AwsError(
                f"firehose: delivery stream {options.delivery_stream!r} is read from S3: shard_group applies "
                "to a delivery stream with a Kinesis source only"
            )
        self.s3_connection = Connection.of("s3", {k: v for k, v in opts.items() if k != "endpoint"})
        self.latest = str(opts.get("starting_position", "LATEST")).upper() != "TRIM_HORIZON"
        self.max_objects = int(number("firehose", opts, "max_objects", "1000"))
        self.preprocessor: Preprocessor | None = None
        function = opts.get("preprocessor")
        if function:
            application = opts.get("application_arn") or (
                f"arn:aws:kinesisanalytics:{options.connection.region}:000000000000:application/overjoin"
            )
            self.preprocessor = Preprocessor(
                preprocessor_connection(options.connection, function),
                function,
                application,
                self.arn,
                "firehose",
                int(number("firehose", opts, "preprocessor_max_attempts", "10")),
            )
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.s3_connection.client()
        return self._client

    def _where(self) -> str:
        assert self.s3 is not None
        return f"s3://{self.s3.bucket}/{self.s3.prefix}"

    def _list(self, after: str) -> list[tuple[str, float]]:
        """(key, modified epoch seconds) of the destination's objects after key `after`, in key order."""
        assert self.s3 is not None
        out: list[tuple[str, float]] = []
        kw: dict[str, Any] = {"Bucket": self.s3.bucket, "Prefix": self.s3.prefix}
        if after:
            kw["StartAfter"] = after
        try:
            while True:
                resp = self.client.list_objects_v2(**kw)
                out.extend((o["Key"], o["LastModified"].timestamp()) for o in resp.get("Contents", []))
                if not resp.get("IsTruncated"):
                    return out
                kw = {
                    "Bucket": self.s3.bucket,
                    "Prefix": self.s3.prefix,
                    "ContinuationToken": resp["NextContinuationToken"],
                }
        except Exception as error:
            what = f"delivery stream {self.options.delivery_stream!r}'s objects {self._where()}"
            raise worded(self.s3_connection, what, error, "listing them", "delivery_stream") from error

    def initialOffset(self) -> dict:
        # Spark asks again for the first batch's start when it runs the batch: the same answer.
        if self._initial is None:
            self._initial = self._initial_offset()
        return self._initial

    def _initial_offset(self) -> dict:
        if self.kinesis is not None:
            return {"kinesis": self.kinesis.initialOffset()}
        floor = ""
        if self.latest:
            listed = self._list("")
            floor = listed[-1][0] if listed else ""
        return {"s3": {"floor": floor, "read": [], "batch": []}}

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        if self.kinesis is not None:
            rows, end = self.kinesis.read(start["kinesis"])
            return rows, {"kinesis": end}
        state = start["s3"]
        seen = {k for k, _ in state["read"]}
        new = [(k, t) for k, t in self._list(state["floor"]) if k not in seen][: self.max_objects]
        read = [*state["read"], *([k, t] for k, t in new)]
        # Keys older than LATE_SECONDS, below every newer key, move under the floor.
        now = time.time()
        batch = {k for k, _ in new}
        old = sorted(k for k, t in read if now - t > LATE_SECONDS and k not in batch)
        kept = [[k, t] for k, t in read if not (now - t > LATE_SECONDS and k not in batch)]
        floor = state["floor"]
        if old and (not kept or old[-1] < min(k for k, _ in kept)):
            floor = max(floor, old[-1])
            kept = [[k, t] for k, t in kept if k > floor]
        end = {"s3": {"floor": floor, "read": sorted(kept), "batch": sorted(batch)}}
        return iter(self._rows([k for k, _ in new])), end

    def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
        if self.kinesis is not None:
            return self.kinesis.readBetweenOffsets(start["kinesis"], end["kinesis"])
        return iter(self._rows(end["s3"]["batch"]))

    def _rows(self, keys: list[str]) -> list[tuple[Any, ...]]:
        assert self.s3 is not None
        records: list[SourceRecord] = []
        for key in sorted(keys):
            try:
                obj = self.client.get_object(Bucket=self.s3.bucket, Key=key)
                body = obj["Body"].read()
            except Exception as error:
                what = f"object s3://{self.s3.bucket}/{key} of delivery stream {self.options.delivery_stream!r}"
                raise worded(self.s3_connection, what, error, "reading it", "delivery_stream") from error
            if body[:2] == b"\x1f\x8b":
                body = gzip.decompress(body)
            arrival = obj.get("LastModified") or datetime.now(tz=timezone.utc)
            meta = {"sequenceNumber": key}
            if self.preprocessor is None:
                records.append(SourceRecord(key, body, arrival, meta))
            else:
                records.extend(SourceRecord(f"{key}#{i}", data, arrival, meta)
                               for i, data in enumerate(split_records(body)))  # fmt: skip
        if self.preprocessor is None:
            return rows_of([Outcome(r, r.data) for r in records])
        return rows_of(self.preprocessor.process(records)) if records else []

    def commit(self, end: dict) -> None:
        pass


def delivery_stream_name(text: str) -> str:
    parts = arn_parts(text)
    return parts["resource"].split("/", 1)[-1] if parts else text
