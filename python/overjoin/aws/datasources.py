"""The Spark data sources of AWS services that the server's SQL names (``CREATE STREAM ... WITH
(format = 'kinesis' | 'firehose' | 'lambda', ...)``, reference tables from ``s3object``).

Spark 4 registers every importable top-level module named ``pyspark_*`` whose ``DefaultSource`` is a
:class:`pyspark.sql.datasource.DataSource`, in any session, the server's JVM driver included (its
Python workers must run a Python that has overjoin and boto3: ``overjoin server`` sets
``PYSPARK_PYTHON`` to its own); the modules ``pyspark_overjoin_kinesis``, ``..._firehose``,
``..._lambda`` and ``..._s3object`` name these classes. They can be used without overjoin's SQL::

    spark.readStream.format("kinesis").option("stream", "orders").load()

Rows read have ``value`` (the record's bytes), ``partition_key``, ``sequence_number``, ``shard_id``,
``approximate_arrival_timestamp`` and ``processing_error`` (a Lambda preprocessor's failure, else
NULL). Rows written need a ``value`` column (STRING or BINARY); Kinesis's may have ``partition_key``.
Writers run on the executors, with the endpoint and credentials boto3 finds where the write is
planned (the driver) when the options give none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
    SimpleDataSourceStreamReader,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from overjoin.aws import firehose_sink, kinesis_sink, lambda_sink, s3_reference
from overjoin.aws.connection import AwsError
from overjoin.aws.firehose_sink import FirehoseOptions
from overjoin.aws.firehose_source import FirehoseStreamReader
from overjoin.aws.kinesis_source import SCHEMA, KinesisOptions, KinesisStreamReader, check_stream
from overjoin.aws.lambda_sink import LambdaOptions
from overjoin.aws.s3_reference import S3ObjectOptions

__all__ = ["FirehoseDataSource", "KinesisDataSource", "LambdaDataSource", "S3ObjectDataSource"]


@dataclass
class Written(WriterCommitMessage):
    """What one partition's writer sent: records, and requests (or calls)."""

    records: int
    requests: int


def _check_write_schema(service: str, schema: StructType) -> None:
    names = [f.name.lower() for f in schema.fields]
    if "value" not in names:
        raise AwsError(
            f"{service}: rows written need a value column (STRING or BINARY); "
            f"they have {', '.join(schema.fieldNames())}"
        )


class _BatchWriter(DataSourceWriter):
    """A batch's writer: `send` writes one partition's rows."""

    def __init__(self, send: Any, options: Any) -> None:
        self.send = send
        self.options = options

    def write(self, iterator: Iterator[Any]) -> Written:
        records, requests = self.send(self.options, iterator)
        return Written(records, requests)


class _StreamWriter(DataSourceStreamWriter):
    """A micro-batch's writer: `send` writes one partition's rows. Nothing to commit: what is sent is sent."""

    def __init__(self, send: Any, options: Any) -> None:
        self.send = send
        self.options = options

    def write(self, iterator: Iterator[Any]) -> Written:
        records, requests = self.send(self.options, iterator)
        return Written(records, requests)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        pass

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        pass


class _StreamReader(SimpleDataSourceStreamReader):
    """Spark's simple stream reader around a reader of ours (initialOffset, read, readBetweenOffsets)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def initialOffset(self) -> dict:
        offset: dict = self.inner.initialOffset()
        return offset

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        result: tuple[Iterator[tuple], dict] = self.inner.read(start)
        return result

    def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
        rows: Iterator[tuple] = self.inner.readBetweenOffsets(start, end)
        return rows

    def commit(self, end: dict) -> None:
        pass


class KinesisDataSource(DataSource):
    """``format("kinesis")``: a Kinesis data stream, read as a stream and written."""

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

    def simpleStreamReader(self, schema: StructType) -> _StreamReader:
        return _StreamReader(KinesisStreamReader(self.parsed))

    def _frozen(self, schema: StructType) -> KinesisOptions:
        _check_write_schema("kinesis", schema)
        return dataclasses.replace(self.parsed, connection=self.parsed.connection.frozen())

    def writer(self, schema: StructType, overwrite: bool) -> _BatchWriter:
        return _BatchWriter(kinesis_sink.write, self._frozen(schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> _StreamWriter:
        return _StreamWriter(kinesis_sink.write, self._frozen(schema))


class FirehoseDataSource(DataSource):
    """``format("firehose")``: a Firehose delivery stream, written (PutRecordBatch) and read from what it
    carries (:mod:`overjoin.aws.firehose_source`)."""

    @classmethod
    def name(cls) -> str:
        return "firehose"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.parsed = FirehoseOptions.parse(options)

    def schema(self) -> str:
        if str(self.options.get("validate", "false")).lower() == "true":
            self.parsed.describe()
        return SCHEMA

    def simpleStreamReader(self, schema: StructType) -> _StreamReader:
        return _StreamReader(FirehoseStreamReader(self.parsed))

    def _frozen(self, schema: StructType) -> FirehoseOptions:
        _check_write_schema("firehose", schema)
        return dataclasses.replace(self.parsed, connection=self.parsed.connection.frozen())

    def writer(self, schema: StructType, overwrite: bool) -> _BatchWriter:
        return _BatchWriter(firehose_sink.write, self._frozen(schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> _StreamWriter:
        return _StreamWriter(firehose_sink.write, self._frozen(schema))


class LambdaDataSource(DataSource):
    """``format("lambda")``: a Lambda function records are delivered to (KDA's Lambda output)."""

    @classmethod
    def name(cls) -> str:
        return "lambda"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.parsed = LambdaOptions.parse(options)

    def schema(self) -> str:
        return "value BINARY"

    def _frozen(self, schema: StructType) -> LambdaOptions:
        _check_write_schema("lambda", schema)
        return dataclasses.replace(self.parsed, connection=self.parsed.connection.frozen())

    def writer(self, schema: StructType, overwrite: bool) -> _BatchWriter:
        return _BatchWriter(lambda_sink.write, self._frozen(schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> _StreamWriter:
        return _StreamWriter(lambda_sink.write, self._frozen(schema))


class _ObjectReader(DataSourceReader):
    def __init__(self, options: S3ObjectOptions) -> None:
        self.options = options

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        body, modified = s3_reference.read_object(self.options)
        yield (body, self.options.key, modified)


class S3ObjectDataSource(DataSource):
    """``format("s3object")``: one S3 object as one row (``value``, ``key``, ``last_modified``)."""

    @classmethod
    def name(cls) -> str:
        return "s3object"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.parsed = S3ObjectOptions.parse(options)

    def schema(self) -> str:
        if str(self.options.get("validate", "false")).lower() == "true":
            s3_reference.check_object(self.parsed)
        return s3_reference.SCHEMA

    def reader(self, schema: StructType) -> _ObjectReader:
        return _ObjectReader(self.parsed)
