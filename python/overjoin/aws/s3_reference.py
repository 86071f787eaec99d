"""An S3 object read whole (``format = 's3object'``): the reference data of a KDA application
(``S3ReferenceDataSource``: a bucket and a key), read when its reference table is created or
refreshed. Its rows are decoded with the table's reference schema by the server.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from overjoin.aws.connection import (
    CONNECTION_OPTIONS,
    AwsError,
    Connection,
    arn_parts,
    options_without,
    unknown_options,
    worded,
)

__all__ = ["SCHEMA", "S3ObjectOptions", "read_object"]

#: The one row read: the object's bytes, key and time.
SCHEMA = "value BINARY, key STRING, last_modified TIMESTAMP"

KNOWN = {
    **CONNECTION_OPTIONS,
    "bucket": "the bucket's name or ARN (arn:aws:s3:::name)",
    "key": "the object's key (KDA's FileKey)",
    "validate": "check at load that the object exists (true/false, default false)",
}


@dataclass(frozen=True)
class S3ObjectOptions:
    bucket: str
    key: str
    connection: Connection

    @staticmethod
    def parse(options: Mapping[str, str]) -> S3ObjectOptions:
        opts = options_without(options)
        unknown_options("s3", opts, KNOWN)
        bucket = opts.get("bucket", "").strip()
        key = opts.get("key", "").strip()
        if not bucket or not key:
            raise AwsError("s3: options bucket and key name the reference data's object: give both")
        parts = arn_parts(bucket)
        if parts:
            bucket = parts["resource"]
        return S3ObjectOptions(bucket, key, Connection.of("s3", opts))

    def where(self) -> str:
        return f"object s3://{self.bucket}/{self.key}"


def read_object(options: S3ObjectOptions) -> tuple[bytes, Any]:
    """The object's bytes (GZIP decompressed) and its LastModified."""
    client = options.connection.client()
    try:
        obj = client.get_object(Bucket=options.bucket, Key=options.key)
        body: bytes = obj["Body"].read()
    except Exception as error:
        raise worded(options.connection, options.where(), error, "reading it", "bucket/key") from error
    if body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    return body, obj.get("LastModified")


def check_object(options: S3ObjectOptions) -> None:
    client = options.connection.client(attempts=1)
    try:
        client.head_object(Bucket=options.bucket, Key=options.key)
    except Exception as error:
        raise worded(options.connection, options.where(), error, "looking it up", "bucket/key") from error
