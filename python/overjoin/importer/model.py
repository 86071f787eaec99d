"""One model of a Kinesis Data Analytics SQL application, whatever it was defined in.

Each reader (:mod:`.cloudformation`, :mod:`.terraform`, :mod:`.api`) turns its format into
:class:`Application` values; :mod:`.script` turns those into the SQL script ``overjoin server`` runs.
The model holds what KDA's API holds (``Input``, ``InputSchema``, ``Output``, ``ReferenceDataSource``),
with every AWS resource a :class:`Resource`: what the definition wrote, and the name it resolved to.

What a reader cannot map is a :class:`Problem` (the script gets a comment, stderr gets a line, and
``overjoin import`` exits 1); what a user should know but that maps is a :class:`Note`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "Application",
    "Column",
    "Input",
    "Note",
    "Output",
    "Problem",
    "RecordFormat",
    "ReferenceData",
    "Resource",
    "Schema",
]

#: The kinds of resource a KDA application refers to, as the SQL names them.
KINDS = ("kinesis", "firehose", "lambda", "bucket")

#: How each kind is described in messages.
KIND_NAMES = {
    "kinesis": "Kinesis data stream",
    "firehose": "Firehose delivery stream",
    "lambda": "Lambda function",
    "bucket": "S3 bucket",
}


@dataclass(frozen=True)
class Resource:
    """An AWS resource the application uses.

    ``name`` is what the script gives the server: a stream's, delivery stream's or bucket's name, a
    function's name or ARN (an ARN keeps a version or alias); None when the definition does not say
    and no ``--resource`` named it. ``written`` is how the definition wrote it (for messages), ``key``
    the identifier a user names in ``--resource KEY=NAME`` (a CloudFormation logical ID or export
    name, a Terraform address), ``region`` the region an ARN names, if any.
    """

    kind: str
    name: str | None
    written: str
    key: str | None = None
    region: str | None = None

    def describe(self) -> str:
        return f"{KIND_NAMES[self.kind]} {self.name!r}" if self.name else f"{KIND_NAMES[self.kind]} {self.written}"


@dataclass(frozen=True)
class RecordFormat:
    """KDA's ``RecordFormat``: JSON with its row path, or CSV with its delimiters."""

    kind: str  # "JSON" or "CSV"
    row_path: str | None = None
    row_delimiter: str | None = None
    column_delimiter: str | None = None


@dataclass(frozen=True)
class Column:
    """KDA's ``RecordColumn``."""

    name: str
    sql_type: str
    mapping: str | None = None


@dataclass(frozen=True)
class Schema:
    """KDA's ``InputSchema`` / ``ReferenceSchema``."""

    format: RecordFormat
    columns: tuple[Column, ...]
    encoding: str | None = None


@dataclass(frozen=True)
class Input:
    """KDA's ``Input``: a Kinesis data stream or a Firehose delivery stream read into the in-application
    streams ``<name_prefix>_001`` to ``_00<parallelism>``."""

    name_prefix: str
    source: Resource
    schema: Schema
    parallelism: int = 1
    preprocessor: Resource | None = None
    starting_position: str | None = None  # NOW, TRIM_HORIZON or LAST_STOPPED_POINT, when the definition says

    @property
    def stream_names(self) -> list[str]:
        return [f"{self.name_prefix}_{i:03d}" for i in range(1, self.parallelism + 1)]


@dataclass(frozen=True)
class Output:
    """KDA's ``Output``: an in-application stream sent to a Kinesis stream, a delivery stream or a function."""

    name: str
    destination: Resource
    record_format: str  # "JSON" or "CSV"


@dataclass(frozen=True)
class ReferenceData:
    """KDA's ``ReferenceDataSource``: an S3 object loaded as a table."""

    table_name: str
    bucket: Resource
    file_key: str
    schema: Schema


@dataclass(frozen=True)
class Problem:
    """Something of the definition the script cannot carry out: where (the resource and the
    property), what is wrong, and what to do."""

    where: str
    what: str
    fix: str

    def line(self) -> str:
        return f"{self.where}: {self.what}: {self.fix}"


@dataclass(frozen=True)
class Note:
    """Something the user should know about how a part of the definition is carried out."""

    where: str
    text: str

    def line(self) -> str:
        return f"{self.where}: {self.text}"


@dataclass
class Application:
    """One KDA SQL application: its code as written (intrinsics resolved), inputs, outputs and
    reference data; ``origin`` says where the definition holds it (``app.yaml: Resources.OrdersApp``)."""

    name: str
    origin: str
    code: str
    description: str = ""
    inputs: list[Input] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    references: list[ReferenceData] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
