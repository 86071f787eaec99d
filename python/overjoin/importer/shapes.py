"""KDA's API shapes (``Input``, ``InputSchema``, ``Output``, ``ReferenceDataSource``, and their
``...Description`` forms), which CloudFormation and the API JSON both use, read into the model.

A reader hands in two functions: `text` (a property's value as a string, its intrinsics resolved)
and `resource` (the :class:`~overjoin.importer.model.Resource` a property names), so that the same
code serves a template, where values are still intrinsic functions, and API JSON, where they are
literal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from overjoin.importer.model import Column, Input, Output, Problem, RecordFormat, ReferenceData, Resource, Schema

__all__ = ["Reading", "input_of", "output_of", "reference_of"]

Text = Callable[[Any], str]
ResourceOf = Callable[[str, Any, str], Resource]


class Reading:
    """What one reader is reading: its `text` and `resource` functions, and the problems found."""

    def __init__(self, text: Text, resource: ResourceOf, shape: Callable[[Any], Any] = lambda node: node) -> None:
        self.text = text
        self.resource = resource
        self.shape = shape
        self.problems: list[Problem] = []

    def get(self, node: Any, *names: str) -> Any:
        """The first of `names` that `node` has (a create form's key or its describe form's), with the
        choices that shape it made (a template's ``Fn::If``); its values are left for `text`."""
        node = self.shape(node)
        if not isinstance(node, Mapping):
            return None
        for n in names:
            if n in node:
                return self.shape(node[n])
        return None

    def items(self, node: Any) -> list[Any]:
        """The elements of a list property."""
        node = self.shape(node)
        return [self.shape(x) for x in node] if isinstance(node, list) else []

    def problem(self, where: str, what: str, fix: str) -> None:
        self.problems.append(Problem(where, what, fix))


def schema_of(r: Reading, node: Any, where: str) -> Schema | None:
    """KDA's ``InputSchema``/``ReferenceSchema``."""
    node = r.shape(node)
    if not isinstance(node, Mapping):
        r.problem(where, "there is no schema", "give the input its InputSchema (RecordFormat and RecordColumns)")
        return None
    fmt = r.get(node, "RecordFormat") or {}
    kind = r.text(r.get(fmt, "RecordFormatType") or "").upper()
    params = r.get(fmt, "MappingParameters") or {}
    json_params = r.get(params, "JSONMappingParameters")
    csv_params = r.get(params, "CSVMappingParameters")
    if not kind:
        kind = "CSV" if csv_params else "JSON"
    if kind not in ("JSON", "CSV"):
        r.problem(
            f"{where}.RecordFormat.RecordFormatType", f"{kind!r} is not a record format KDA reads", "write JSON or CSV"
        )
        return None
    if kind == "JSON":
        row_path = r.text(r.get(json_params, "RecordRowPath") or "$") if json_params else "$"
        record = RecordFormat("JSON", row_path=row_path)
    else:
        record = RecordFormat(
            "CSV",
            row_delimiter=r.text(r.get(csv_params, "RecordRowDelimiter") or "\n"),
            column_delimiter=r.text(r.get(csv_params, "RecordColumnDelimiter") or ","),
        )
    columns = []
    for i, c in enumerate(r.items(r.get(node, "RecordColumns"))):
        name, sql_type = r.text(r.get(c, "Name") or ""), r.text(r.get(c, "SqlType") or "")
        if not name or not sql_type:
            r.problem(f"{where}.RecordColumns[{i}]", "a column needs a Name and a SqlType", "give both")
            continue
        mapping = r.get(c, "Mapping")
        columns.append(
            Column(name, sql_type, r.text(mapping) if mapping not in (None, "") and kind == "JSON" else None)
        )
    if not columns:
        r.problem(f"{where}.RecordColumns", "the schema has no column", "declare the columns of the records")
        return None
    encoding = r.get(node, "RecordEncoding")
    return Schema(record, tuple(columns), r.text(encoding) if encoding else None)


def input_of(r: Reading, node: Mapping[str, Any], where: str) -> Input | None:
    """KDA's ``Input`` (or ``InputDescription``)."""
    prefix = r.text(r.get(node, "NamePrefix") or "")
    if not prefix:
        r.problem(f"{where}.NamePrefix", "the input has no NamePrefix", "give the in-application stream's prefix")
        return None
    kinesis = r.get(node, "KinesisStreamsInput", "KinesisStreamsInputDescription")
    firehose = r.get(node, "KinesisFirehoseInput", "KinesisFirehoseInputDescription")
    if kinesis:
        source = r.resource("kinesis", r.get(kinesis, "ResourceARN"), f"{where}.KinesisStreamsInput.ResourceARN")
    elif firehose:
        source = r.resource("firehose", r.get(firehose, "ResourceARN"), f"{where}.KinesisFirehoseInput.ResourceARN")
    else:
        r.problem(where, "the input reads neither a Kinesis data stream nor a Firehose delivery stream",
                  "give it KinesisStreamsInput or KinesisFirehoseInput")  # fmt: skip
        return None
    schema = schema_of(r, r.get(node, "InputSchema"), f"{where}.InputSchema")
    if schema is None:
        return None
    parallelism = r.get(r.get(node, "InputParallelism"), "Count")
    count = int(r.text(parallelism)) if parallelism not in (None, "") else 1
    if not 1 <= count <= 64:
        r.problem(f"{where}.InputParallelism.Count", f"{count} is not between 1 and 64", "give a count KDA takes")
        count = max(1, min(count, 64))
    processing = r.get(node, "InputProcessingConfiguration", "InputProcessingConfigurationDescription")
    processor = r.get(processing, "InputLambdaProcessor", "InputLambdaProcessorDescription")
    preprocessor = None
    if processor:
        preprocessor = r.resource("lambda", r.get(processor, "ResourceARN"),
                                  f"{where}.InputProcessingConfiguration.InputLambdaProcessor.ResourceARN")  # fmt: skip
    start = r.get(r.get(node, "InputStartingPositionConfiguration"), "InputStartingPosition")
    return Input(prefix, source, schema, count, preprocessor, r.text(start) if start else None)


def output_of(r: Reading, node: Mapping[str, Any], where: str) -> Output | None:
    """KDA's ``Output`` (or ``OutputDescription``)."""
    name = r.text(r.get(node, "Name") or "")
    if not name:
        r.problem(f"{where}.Name", "the output names no in-application stream", "give Name, the stream it sends")
        return None
    fmt = r.text(r.get(r.get(node, "DestinationSchema"), "RecordFormatType") or "").upper()
    if fmt not in ("JSON", "CSV"):
        r.problem(f"{where}.DestinationSchema.RecordFormatType", f"{fmt or 'nothing'} is not JSON or CSV",
                  "give the output's record format")  # fmt: skip
        return None
    for key, kind in (
        ("KinesisStreamsOutput", "kinesis"),
        ("KinesisFirehoseOutput", "firehose"),
        ("LambdaOutput", "lambda"),
    ):
        dest = r.get(node, key, key + "Description")
        if dest:
            return Output(name, r.resource(kind, r.get(dest, "ResourceARN"), f"{where}.{key}.ResourceARN"), fmt)
    r.problem(where, "the output has no destination",
              "give it KinesisStreamsOutput, KinesisFirehoseOutput or LambdaOutput")  # fmt: skip
    return None


def reference_of(r: Reading, node: Mapping[str, Any], where: str) -> ReferenceData | None:
    """KDA's ``ReferenceDataSource`` (or its description)."""
    table = r.text(r.get(node, "TableName") or "")
    s3 = r.get(node, "S3ReferenceDataSource", "S3ReferenceDataSourceDescription")
    if not table or not s3:
        r.problem(where, "the reference data source needs a TableName and an S3ReferenceDataSource", "give both")
        return None
    bucket = r.resource("bucket", r.get(s3, "BucketARN"), f"{where}.S3ReferenceDataSource.BucketARN")
    key = r.text(r.get(s3, "FileKey") or "")
    if not key:
        r.problem(f"{where}.S3ReferenceDataSource.FileKey", "no object key", "give the object's key")
        return None
    schema = schema_of(r, r.get(node, "ReferenceSchema"), f"{where}.ReferenceSchema")
    return ReferenceData(table, bucket, key, schema) if schema else None
