"""Reading KDA SQL applications from Terraform: a ``.tf`` file or a folder of them, with the values of
their variables.

Resources read: ``aws_kinesis_analytics_application`` (its ``inputs``, ``outputs`` and
``reference_data_sources`` blocks) and ``aws_kinesisanalyticsv2_application`` whose
``runtime_environment`` is ``SQL-1_0`` (``application_configuration.sql_application_configuration``
with ``input``, ``output``, ``reference_data_source``), one application per resource instance
(``count`` and ``for_each`` are evaluated), in the order of the files (sorted by name) and of the
blocks in them. A ``module`` block whose ``source`` is a local folder (``./...``, ``../...``) is read
too, its variables given by the module block's arguments; its applications come where it is called.

Values are evaluated as Terraform would before it calls AWS (:mod:`overjoin.importer.hcl`):
variables (their ``default``, then ``terraform.tfvars``, ``*.auto.tfvars`` and the ``var_files``
given, then ``--parameter NAME=VALUE``), ``locals``, ``path.module``, the attributes written in other
resources and data sources, module outputs, heredocs and templates, ``file()``, ``templatefile()``
and the other functions, and ``dynamic`` blocks. The SQL is exactly the text Terraform sends.

An AWS resource an application names (``resource_arn``, ``bucket_arn``) is found by what it is:

* a reference to a stream, delivery stream, function or bucket of the files
  (``aws_kinesis_stream.clicks.arn``, ``data.aws_kinesis_stream.x.arn``,
  ``aws_lambda_function.f.arn``/``qualified_arn``/``function_name``, ``aws_s3_bucket.b.arn``/``id``/
  ``bucket``; ``[N]`` of one with ``count``) is the name that resource's block gives it; its address is
  the key ``--resource`` names it by (``module.m.`` in front inside a module);
* anything else (a literal or built ARN, a variable, a local, a module output) is evaluated and read
  as an ARN; the one resource or module it refers to, if there is one, is its key.

When the name cannot be known (a variable with no value, a module not in the files, a name AWS
makes) and no ``--resource`` gives it, the application gets a :class:`~overjoin.importer.model.Problem`
saying which property, why, and what to pass; the same goes for any value that matters (the SQL, a
column) and cannot be evaluated.

Not read: ``.tf.json`` files, override files (``override.tf``, ``*_override.tf``), ``TF_VAR_``
environment variables, remote module sources (a Terraform registry, git, S3), workspaces other than
``default``, and providers' own functions (``provider::aws::...``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lark import Tree

from overjoin.importer.hcl import (
    Block,
    Body,
    HclError,
    Lazy,
    Node,
    Scope,
    Session,
    Unknown,
    evaluate,
    get_index,
    interpolated,
    parse,
    parse_expression,
    source,
    to_number,
    to_str,
)
from overjoin.importer.model import (
    KIND_NAMES,
    Application,
    Column,
    Input,
    Note,
    Output,
    Problem,
    RecordFormat,
    ReferenceData,
    Resource,
    Schema,
)
from overjoin.importer.names import Bindings, resource_from_arn, resource_from_name

__all__ = ["read_terraform"]

_V1 = "aws_kinesis_analytics_application"
_V2 = "aws_kinesisanalyticsv2_application"


@dataclass(frozen=True)
class _Named:
    """A resource type an application refers to: the kind of resource, the argument holding its name,
    the attributes a reference may name it by, and its ARN (region and account are not known)."""

    kind: str
    name_attr: str
    attrs: frozenset[str]
    arn: str  # with {name}, {region}, {account}
    id_is_arn: bool


_NAMED = {
    "aws_kinesis_stream": _Named("kinesis", "name", frozenset({"arn", "id", "name"}),
                                 "arn:aws:kinesis:{region}:{account}:stream/{name}", True),
    "aws_kinesis_firehose_delivery_stream": _Named("firehose", "name", frozenset({"arn", "id", "name"}),
                                                   "arn:aws:firehose:{region}:{account}:deliverystream/{name}", True),
    "aws_lambda_function": _Named("lambda", "function_name",
                                  frozenset({"arn", "qualified_arn", "function_name", "id"}),
                                  "arn:aws:lambda:{region}:{account}:function:{name}", False),
    "aws_s3_bucket": _Named("bucket", "bucket", frozenset({"arn", "id", "bucket"}), "arn:aws:s3:::{name}", False),
}  # fmt: skip

#: What ``--resource KEY=...`` gives for each kind.
_NOUN = {
    "kinesis": "stream name",
    "firehose": "delivery stream name",
    "lambda": "function name",
    "bucket": "bucket name",
}


@dataclass(frozen=True)
class _Names:
    """The argument and block names of one resource type's application (v1 and v2 differ)."""

    input: str
    kinesis: str
    firehose: str
    parallelism: str
    processing: str
    processor: str
    start: str
    start_attr: str
    schema: str
    columns: str
    json: str
    csv: str
    output: str
    destination_schema: str
    outputs: tuple[tuple[str, str], ...]
    reference: str
    s3: str
    reference_schema: str


_V1_NAMES = _Names("inputs", "kinesis_stream", "kinesis_firehose", "parallelism", "processing_configuration",
                   "lambda", "starting_position_configuration", "starting_position", "schema", "record_columns",
                   "json", "csv", "outputs", "schema",
                   (("kinesis_stream", "kinesis"), ("kinesis_firehose", "firehose"), ("lambda", "lambda")),
                   "reference_data_sources", "s3", "schema")  # fmt: skip
_V2_NAMES = _Names("input", "kinesis_streams_input", "kinesis_firehose_input", "input_parallelism",
                   "input_processing_configuration", "input_lambda_processor", "input_starting_position_configuration",
                   "input_starting_position", "input_schema", "record_column", "json_mapping_parameters",
                   "csv_mapping_parameters", "output", "destination_schema",
                   (("kinesis_streams_output", "kinesis"), ("kinesis_firehose_output", "firehose"),
                    ("lambda_output", "lambda")),
                   "reference_data_source", "s3_reference_data_source", "reference_schema")  # fmt: skip


def read_terraform(path: Path, bindings: Bindings, var_files: Sequence[Path] = ()) -> list[Application]:
    """The applications of a ``.tf`` file or of a folder's ``.tf`` files, in file and block order.

    `var_files` are ``.tfvars`` files given by the user (a later one wins); a folder's (or a file's
    folder's) ``terraform.tfvars`` and ``*.auto.tfvars`` are read first.

    Raises:
        ValueError: a file cannot be read or has a syntax error (``<file>: line N, column M: ...``).
    """
    if not path.exists():
        raise ValueError(f"{path}: no such file or folder")
    folder = path if path.is_dir() else path.parent
    files = _tf_files(folder) if path.is_dir() else [path]
    tfvars = [folder / "terraform.tfvars", folder / "terraform.tfvars.json"]
    tfvars += sorted(p for p in folder.iterdir() if p.name.endswith((".auto.tfvars", ".auto.tfvars.json")))
    reader = _Reader(folder, bindings)
    for p in [p for p in tfvars if p.is_file()] + list(var_files):
        reader.load_tfvars(p)
    root = _Module(reader, folder, [(p, reader.load(p)) for p in files], "", None)
    reader.region = root.region()
    apps = root.applications()
    others = [p.name for p in _tf_files(folder) if p.name != path.name] if not path.is_dir() else []
    if others:
        shown = ", ".join(others[:3]) + (" ..." if len(others) > 3 else "")
        for app in apps:
            app.notes.append(Note(app.origin, f"{path.name} is read alone; {shown} in its folder are not (give the "
                                              "folder to read them all, as Terraform does)"))  # fmt: skip
    return apps


def _tf_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.tf")
                  if p.is_file() and p.name != "override.tf" and not p.name.endswith("_override.tf"))  # fmt: skip


class _Reader:
    """What all the modules of one read share: the user's values, the session, the parsed files."""

    def __init__(self, base: Path, bindings: Bindings) -> None:
        self.base = base
        self.bindings = bindings
        self.session = Session(base)
        self.tfvars: dict[str, tuple[str, Any]] = {}  # name -> ("expr", node) or ("value", JSON value)
        self.region: str | None = None
        self._files: dict[Path, Body] = {}

    def load(self, path: Path) -> Body:
        key = path.resolve()
        if key not in self._files:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise ValueError(f"{path}: cannot read it: {e}") from None
            self._files[key] = parse(text, path)
        return self._files[key]

    def load_tfvars(self, path: Path) -> None:
        if path.name.endswith(".json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise ValueError(f"{path}: not a JSON .tfvars file: {e}") from None
            if not isinstance(data, dict):
                raise ValueError(f"{path}: a .tfvars.json file is an object of variable values")
            for k, v in data.items():
                self.tfvars[k] = ("value", v)
            return
        body = self.load(path)
        if body.blocks:
            raise ValueError(f"{path}: line {body.blocks[0].line}: a .tfvars file has variable values only, no blocks")
        for k, node in body.attributes.items():
            self.tfvars[k] = ("expr", node)

    def constant_scope(self, what: str) -> Scope:
        """The scope of a value that can refer to nothing (a default, a .tfvars value, a --parameter)."""

        def nothing(name: str, scope: Scope) -> Any:
            raise HclError(f"{what} cannot refer to {name}")

        return Scope(self.session, nothing)


@dataclass
class _Call:
    """How a module instance is called: the calling module, the module block, the instance's names
    (``count``, ``each``)."""

    module: _Module
    block: Block
    names: dict[str, Any]


class _Module:
    """One module instance (the root, or a local module called by a ``module`` block)."""

    def __init__(self, reader: _Reader, folder: Path, files: list[tuple[Path, Body]], address: str,
                 call: _Call | None, depth: int = 0) -> None:  # fmt: skip
        self.reader = reader
        self.session = reader.session
        self.folder = folder
        self.files = files
        self.address = address  # "" or "module.m." / "module.m[0]." (nested: "module.a.module.b.")
        self.call = call
        self.depth = depth
        self.variables: dict[str, Block] = {}
        self.locals: dict[str, Node] = {}
        self.resources: dict[tuple[str, str], Block] = {}
        self.data: dict[tuple[str, str], Block] = {}
        self.calls: dict[str, Block] = {}
        self.outputs: dict[str, Block] = {}
        self._children: dict[str, Any] = {}
        for _, body in files:
            for b in body.blocks:
                if b.type == "variable" and b.labels:
                    self.variables[b.labels[0]] = b
                elif b.type == "locals":
                    self.locals.update(b.body.attributes)
                elif b.type == "resource" and len(b.labels) == 2:
                    self.resources[(b.labels[0], b.labels[1])] = b
                elif b.type == "data" and len(b.labels) == 2:
                    self.data[(b.labels[0], b.labels[1])] = b
                elif b.type == "module" and b.labels:
                    self.calls[b.labels[0]] = b
                elif b.type == "output" and b.labels:
                    self.outputs[b.labels[0]] = b

    # ------------------------------------------------------------------ names

    def scope(self, names: dict[str, Any] | None = None) -> Scope:
        return Scope(self.session, self.resolve, names)

    def resolve(self, name: str, scope: Scope) -> Any:
        """What a name that no ``for`` or iterator binds means in this module."""
        if name == "var":
            return _Namespace("var", self.var)
        if name == "local":
            return _Namespace("local", self.local)
        if name == "path":
            module = Path(os.path.relpath(self.folder, self.reader.base)).as_posix() if self.call else "."
            return {"module": module, "root": ".", "cwd": str(self.reader.base)}
        if name == "terraform":
            return {"workspace": "default"}
        if name == "module":
            return _Namespace("module", self.module_value)
        if name == "data":
            return _Namespace("data", self._data_type)
        if name in ("count", "each", "self"):
            raise HclError(f"{name} is used where there is no {name}")
        return _Namespace(name, lambda label: self.resource(name, label, False))

    def _data_type(self, type_: str) -> _Namespace:
        return _Namespace(f"data.{type_}", lambda label: self.resource(type_, label, True))

    def var(self, name: str) -> Any:
        return self.session.memo((id(self), "var", name), f"var.{name}", lambda: self._var(name))

    def _var(self, name: str) -> Any:
        block = self.variables.get(name)
        type_node = block.body.attributes.get("type") if block else None
        if self.call is None:
            given = self.reader.bindings.parameter(name)
            if given is not None:
                return _parameter(given, type_node, self.reader)
            if name in self.reader.tfvars:
                how, value = self.reader.tfvars[name]
                if how == "value":
                    return _convert(value, type_node)
                return _convert(evaluate(value, self.reader.constant_scope(".tfvars values")), type_node)
        elif name in self.call.block.body.attributes:
            caller = self.call.module
            return _convert(evaluate(self.call.block.body.attributes[name], caller.scope(self.call.names)), type_node)
        if block is not None and "default" in block.body.attributes:
            default = evaluate(block.body.attributes["default"], self.reader.constant_scope("a default"))
            return _convert(default, type_node)
        if self.call is not None:
            module = self.address.rstrip(".")
            return Unknown(f"var.{name}", f"{module} does not set the variable {name}, which has no default",
                           f"give {name} in the module block")  # fmt: skip
        if block is None:
            return Unknown(f"var.{name}", f"the files read declare no variable {name}", f"--parameter {name}=<value>")
        return Unknown(f"var.{name}", f"the variable {name} has no value (no default, no .tfvars value)",
                       f"--parameter {name}=<value>")  # fmt: skip

    def local(self, name: str) -> Any:
        if name not in self.locals:
            return Unknown(f"local.{name}", f"no locals block of the files read sets {name}", "read the whole folder")
        node = self.locals[name]
        return self.session.memo((id(self), "local", name), f"local.{name}", lambda: evaluate(node, self.scope()))

    def instances(self, block: Block, scope: Scope) -> list[tuple[str, dict[str, Any]]] | Unknown:
        """A block's instances (``count``, ``for_each``): each one's address suffix and names."""
        attrs = block.body.attributes
        if "count" in attrs:
            count = evaluate(attrs["count"], scope)
            if isinstance(count, Unknown):
                return count
            n = to_number(count)
            if not isinstance(n, int) or n < 0:
                raise HclError(f"count is {count!r}, not a whole number")
            return [(f"[{i}]", {"count": {"index": i}}) for i in range(n)]
        if "for_each" in attrs:
            each = evaluate(attrs["for_each"], scope)
            if isinstance(each, Unknown):
                return each
            if isinstance(each, dict):
                pairs = [(k, each[k]) for k in sorted(each)]
            elif isinstance(each, list):
                pairs = [(to_str(v), v) for v in sorted({to_str(v) for v in each})]
            else:
                raise HclError("for_each is a map or a set of strings")
            return [(f"[{json.dumps(k)}]", {"each": {"key": k, "value": v}}) for k, v in pairs]
        return [("", {})]

    def resource(self, type_: str, label: str, data: bool) -> Any:
        """``aws_x.label`` (or ``data.aws_x.label``): the instance, or a list/map of them."""
        address = f"{'data.' if data else ''}{type_}.{label}"
        block = (self.data if data else self.resources).get((type_, label))
        if block is None:
            self.session.refs.append(self.address + address)
            return Unknown(address, f"the files read do not define {self.address}{address}",
                           "define it, or write the value it stands for")  # fmt: skip
        found = self.instances(block, self.scope())
        if isinstance(found, Unknown):
            return found
        if "count" in block.body.attributes:
            return [_Instance(self, block, address + s, n) for s, n in found]
        if "for_each" in block.body.attributes:
            return {n["each"]["key"]: _Instance(self, block, address + s, n) for s, n in found}
        return _Instance(self, block, address, {})

    def module_value(self, name: str) -> Any:
        """``module.name``: its outputs (a list or map of them for ``count``/``for_each``)."""
        self.session.refs.append(f"{self.address}module.{name}")
        block = self.calls.get(name)
        if block is None:
            return Unknown(f"module.{name}", f"the files read have no module {name}", "")
        children = self.children(block)
        if isinstance(children, Unknown):
            return children
        values = [(suffix, _Outputs(child)) for suffix, child in children]
        if "count" in block.body.attributes:
            return [v for _, v in values]
        if "for_each" in block.body.attributes:
            return {json.loads(s[1:-1]): v for s, v in values}
        return values[0][1]

    def children(self, block: Block) -> list[tuple[str, _Module]] | Unknown:
        """The module instances a module block calls (read once)."""
        name = block.labels[0]
        if name not in self._children:
            self._children[name] = self._call(block)
        result: list[tuple[str, _Module]] | Unknown = self._children[name]
        return result

    def _call(self, block: Block) -> list[tuple[str, _Module]] | Unknown:
        name = block.labels[0]
        folder = self.local_folder(block)
        if folder is None:
            return Unknown(f"module.{name}", f"module {name}'s source is not a local folder of the files read",
                           "write the value instead, or read the module's folder")  # fmt: skip
        if self.depth >= 16:
            raise HclError(f"module {name}: modules nested more than 16 deep (does a module call itself?)")
        files = [(p, self.reader.load(p)) for p in _tf_files(folder)]
        found = self.instances(block, self.scope())
        if isinstance(found, Unknown):
            return found
        return [(suffix, _Module(self.reader, folder, files, f"{self.address}module.{name}{suffix}.",
                                 _Call(self, block, names), self.depth + 1))
                for suffix, names in found]  # fmt: skip

    def output(self, name: str) -> Any:
        block = self.outputs.get(name)
        if block is None or "value" not in block.body.attributes:
            raise HclError(f"{self.address.rstrip('.')} has no output {name}")
        node = block.body.attributes["value"]
        return self.session.memo((id(self), "output", name), f"output {name}", lambda: evaluate(node, self.scope()))

    def region(self) -> str | None:
        """The region the ``aws`` provider block (without alias) names, if it names one plainly."""
        for _, body in self.files:
            for b in body.blocks:
                if b.type == "provider" and b.labels == ["aws"] and "alias" not in b.body.attributes:
                    node = b.body.attributes.get("region")
                    if node is None:
                        return None
                    self.session.begin()
                    try:
                        value = evaluate(node, self.scope())
                    except HclError:
                        return None
                    return value if isinstance(value, str) and not self.session.gaps else None
        return None

    # ----------------------------------------------------------- applications

    def applications(self) -> list[Application]:
        apps: list[Application] = []
        for path, body in self.files:
            for b in body.blocks:
                if b.type == "resource" and len(b.labels) == 2 and b.labels[0] in (_V1, _V2):
                    apps.extend(self._applications(path, b))
                elif b.type == "module" and b.labels:
                    apps.extend(self._module_applications(path, b))
        return apps

    def _origin(self, path: Path, address: str) -> str:
        shown = Path(os.path.relpath(path, self.reader.base)).as_posix() if self.call else path.name
        return f"{shown}: {self.address}{address}"

    def _applications(self, path: Path, block: Block) -> list[Application]:
        type_, label = block.labels
        address = f"{type_}.{label}"
        try:
            found = self.instances(block, self.scope())
        except HclError as e:
            found = Unknown("count", str(e), "")
        if isinstance(found, Unknown):
            origin = self._origin(path, address)
            what = "count" if "count" in block.body.attributes else "for_each"
            fix = found.fix or "give the values it depends on with --parameter"
            problem = Problem(f"{origin}: {what}", f"cannot tell how many applications it makes ({found.reason})", fix)
            return [Application(label, origin, "", problems=[problem])]
        apps = []
        for suffix, names in found:
            origin = self._origin(path, address + suffix)
            try:
                app = _AppReader(self, block, self.scope(names), origin).read()
            except (HclError, RecursionError, LookupError, TypeError, AttributeError) as e:
                # what this reader did not foresee: the application is reported, the others are read
                what = f"overjoin import could not read it ({type(e).__name__}: {e})"
                app = Application(label, origin, "", problems=[Problem(origin, what, "report it, with the definition")])
            if app is not None:
                apps.append(app)
        return apps

    def _module_applications(self, path: Path, block: Block) -> list[Application]:
        """The applications of a local module's instances (a remote module is not read)."""
        folder = self.local_folder(block)
        if folder is None:
            return []
        try:
            children = self.children(block)
        except HclError as e:
            children = Unknown(f"module.{block.labels[0]}", str(e), "")
        if isinstance(children, Unknown):
            if not any(b.type == "resource" and b.labels[:1] in ([_V1], [_V2])
                       for p in _tf_files(folder) for b in self.reader.load(p).blocks):  # fmt: skip
                return []
            origin = self._origin(path, f"module.{block.labels[0]}")
            problem = Problem(origin, f"cannot tell which instances of the module there are ({children.reason})",
                              children.fix or "give the values it depends on with --parameter")  # fmt: skip
            return [Application(block.labels[0], origin, "", problems=[problem])]
        apps: list[Application] = []
        for _, child in children:
            apps.extend(child.applications())
        return apps

    def local_folder(self, block: Block) -> Path | None:
        """The folder of a module block's source, when it is a local one (``./x``, ``../x``)."""
        src = block.body.attributes.get("source")
        try:
            text = evaluate(src, self.reader.constant_scope("a module source")) if src is not None else None
        except HclError:
            return None
        if not isinstance(text, str) or not text.startswith(("./", "../")):
            return None
        folder = Path(os.path.normpath(self.folder / text))
        return folder if folder.is_dir() else None


class _Namespace(Lazy):
    """``var``, ``local``, ``module``, ``data``, a resource type: their attributes are looked up."""

    def __init__(self, text: str, get: Callable[[str], Any]) -> None:
        self.text = text
        self._get = get

    def attr(self, name: str) -> Any:
        return self._get(name)


class _Instance(Lazy):
    """A resource or data source instance: what its block writes, and the ARN or id of the kinds an
    application uses, built from its name; the rest AWS sets when it is created."""

    def __init__(self, module: _Module, block: Block, address: str, names: dict[str, Any]) -> None:
        self.module = module
        self.block = block
        self.text = address
        self.names = names

    def attr(self, name: str) -> Any:
        self.module.session.refs.append(self.module.address + self.text)
        body = self.block.body
        if self.block.labels[0] == "aws_region" and name in ("name", "region") and self.module.reader.region:
            return self.module.reader.region
        if name in body.attributes:
            node = body.attributes[name]
            return self.module.session.memo((id(self.module), self.text, name), f"{self.text}.{name}",
                                            lambda: evaluate(node, self.module.scope(self.names)))  # fmt: skip
        named = _NAMED.get(self.block.labels[0])
        if named is not None and (name == "arn" or (name == "id" and named.id_is_arn)):
            if named.name_attr not in body.attributes:
                return Unknown(f"{self.text}.{name}", f"{self.text} has no {named.name_attr}: AWS names it", "")
            scope = self.module.scope()
            region = self.module.reader.region or Unknown("region", "the region is known when Terraform runs")
            account = Unknown("account_id", "the account is known when Terraform runs")
            return named.arn.format(
                region=interpolated(region, scope),
                account=interpolated(account, scope),
                name=interpolated(self.attr(named.name_attr), scope),
            )
        if named is not None and name in ("id", "qualified_arn") and named.kind in ("lambda", "bucket"):
            return self.attr(named.name_attr) if name == "id" else self.attr("arn")
        if name == "bucket" and self.block.labels[0] == "aws_s3_bucket":
            return Unknown(f"{self.text}.bucket", f"{self.text} has no bucket argument: AWS names it", "")
        return Unknown(f"{self.text}.{name}", "AWS sets it when Terraform creates the resource", "")

    def index(self, key: Any) -> Any:
        raise HclError(f"{self.text} has no count or for_each, so it cannot be indexed")


class _Outputs(Lazy):
    """A module instance's outputs."""

    def __init__(self, module: _Module) -> None:
        self.module = module
        self.text = module.address.rstrip(".")

    def attr(self, name: str) -> Any:
        return self.module.output(name)


def _parameter(given: str, type_node: Node | None, reader: _Reader) -> Any:
    """A ``--parameter`` value: a string, unless the variable's type says a number, a bool, or a
    collection (then it is HCL, as Terraform's ``-var`` reads it)."""
    kind = source(type_node) if type_node is not None else "string"
    if kind in ("string", "any"):
        return given
    if kind == "number":
        return to_number(given)
    if kind == "bool":
        if given not in ("true", "false"):
            raise HclError(f"--parameter: {given!r} is not true or false")
        return given == "true"
    try:
        return evaluate(parse_expression(given), reader.constant_scope("--parameter values"))
    except HclError:
        return given


def _convert(value: Any, type_node: Node | None) -> Any:
    """A value converted to its variable's primitive type (``default = 5`` of a ``string`` is ``"5"``)."""
    if type_node is None or value is None or isinstance(value, Unknown):
        return value
    kind = source(type_node)
    if kind == "string" and isinstance(value, int | float | bool):
        return to_str(value)
    if kind == "number" and isinstance(value, str):
        return to_number(value)
    if kind == "bool" and value in ("true", "false"):
        return value == "true"
    return value


@dataclass(frozen=True)
class _Index:
    """An index step of a reference (``[0]``, ``["a"]``)."""

    value: str | int


Step = str | _Index


def _reference(node: Node) -> list[Step] | None:
    """A reference as its steps (``aws_kinesis_stream.x.arn`` → ``[aws_kinesis_stream, x, arn]``), also
    when written as the one interpolation of a string (``"${...}"``); None for anything else."""
    kind = node.data
    kids = [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
    if kind == "expr_term":
        return _reference(kids[0]) if len(kids) == 1 and len(node.children) == 1 else None
    if kind == "string":
        parts = [c.children[0] for c in kids if len(c.children) == 1]
        if len(kids) == 1 and len(parts) == 1 and isinstance(parts[0], Tree) and parts[0].data == "interpolation":
            (inner,) = [c for c in parts[0].children if isinstance(c, Tree)]
            return _reference(inner)
        return None
    if kind == "identifier":
        return [str(node.children[0])]
    if kind == "get_attr_expr_term":
        base = _reference(kids[0])
        (attr,) = [c for c in kids[1].children if isinstance(c, Tree)]
        return None if base is None else [*base, str(attr.children[0])]
    if kind == "index_expr_term":
        base = _reference(kids[0])
        index = kids[1]
        if base is None:
            return None
        if index.data == "short_index":
            return [*base, _Index(int(str(index.children[-1])))]
        inside = [c for c in index.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
        literal = _literal(inside[0]) if len(inside) == 1 else None
        return None if literal is None else [*base, _Index(literal)]
    return None


def _literal(node: Node) -> str | int | None:
    """A literal index (``[0]``, ``["a"]``), else None."""
    kids = [c for c in node.children if isinstance(c, Tree)]
    if node.data == "expr_term" and len(node.children) == 1 and len(kids) == 1:
        return _literal(kids[0])
    if node.data == "int_lit":
        return int(str(node.children[0]))
    if node.data == "string":
        try:
            value = evaluate(node, Scope(Session(Path(".")), _no_names))
        except HclError:
            return None
        return value if isinstance(value, str) else None
    return None


def _no_names(name: str, scope: Scope) -> Any:
    raise HclError(f"{name} is not a literal")


def _steps_text(steps: Sequence[Step]) -> str:
    """A reference's steps written as Terraform writes them."""
    out = ""
    for s in steps:
        if isinstance(s, _Index):
            out += f"[{json.dumps(s.value)}]"
        else:
            out += f".{s}" if out else s
    return out


class _AppReader:
    """One application instance read into the model; what cannot be read is a problem of it."""

    def __init__(self, module: _Module, block: Block, scope: Scope, origin: str) -> None:
        self.module = module
        self.block = block
        self.scope = scope
        self.origin = origin
        self.session = module.session
        self.bindings = module.reader.bindings
        self.problems: list[Problem] = []
        self.notes: list[Note] = []

    def problem(self, path: str, what: str, fix: str) -> None:
        self.problems.append(Problem(f"{self.origin}: {path}" if path else self.origin, what, fix))

    # ------------------------------------------------------------- values

    def value(self, body: Body, scope: Scope, attr: str, path: str) -> Any:
        """An argument's value; None when it is not written or cannot be evaluated (then a problem)."""
        node = body.attributes.get(attr)
        if node is None:
            return None
        self.session.begin()
        try:
            value = evaluate(node, scope)
        except HclError as e:
            self.problem(
                path, f"cannot evaluate {_written(node)}: {e}", e.fix or "correct the expression, or write the value"
            )
            return None
        unknown = value if isinstance(value, Unknown) else (self.session.gaps[0] if self.session.gaps else None)
        if unknown is not None:
            self.problem(path, f"{unknown.text} is not known: {unknown.reason}",
                         unknown.fix or "write the value in the files, or give the values it depends on")  # fmt: skip
            if isinstance(value, Unknown):
                return None
        return value

    def text(self, body: Body, scope: Scope, attr: str, path: str, required: bool = True) -> str | None:
        """A string argument (numbers and bools as Terraform writes them)."""
        if attr not in body.attributes:
            if required:
                self.problem(path, f"there is no {attr}", f"give {attr}")
            return None
        known = len(self.problems)
        value = self.value(body, scope, attr, path)
        if value is None:
            if required and len(self.problems) == known:
                self.problem(path, f"{attr} is null", f"give {attr} a value")
            return None
        if isinstance(value, list | dict | Lazy):
            self.problem(path, f"{attr} is not a string", "give a string")
            return None
        return to_str(value)

    def integer(self, body: Body, scope: Scope, attr: str, path: str) -> int | None:
        value = self.value(body, scope, attr, path)
        if value is None:
            return None
        try:
            n = to_number(value)
        except HclError as e:
            self.problem(path, str(e), "give a whole number")
            return None
        if not isinstance(n, int):
            self.problem(path, f"{n} is not a whole number", "give a whole number")
            return None
        return n

    def blocks(self, body: Body, scope: Scope, type_: str, path: str) -> list[tuple[Body, Scope]]:
        """The blocks of a type, those a ``dynamic`` block makes among them, in the order written."""
        out: list[tuple[Body, Scope]] = []
        for b in body.blocks:
            if b.type == type_:
                out.append((b.body, scope))
            elif b.type == "dynamic" and b.labels == [type_]:
                out.extend(self._dynamic(b, scope, f"{path} (dynamic)"))
        return out

    def _dynamic(self, block: Block, scope: Scope, path: str) -> list[tuple[Body, Scope]]:
        content = block.body.first("content")
        iterator = block.body.attributes.get("iterator")
        name = source(iterator) if iterator is not None else block.labels[0]
        if content is None or "for_each" not in block.body.attributes:
            self.problem(path, "a dynamic block needs for_each and a content block", "give both")
            return []
        each = self.value(block.body, scope, "for_each", f"{path}.for_each")
        if each is None:
            return []
        if isinstance(each, dict):
            pairs = [(k, each[k]) for k in sorted(each)]
        elif isinstance(each, list):
            pairs = list(enumerate(each))
        else:
            self.problem(f"{path}.for_each", "for_each is not a list, a set or a map", "give one")
            return []
        return [(content.body, scope.child({name: {"key": k, "value": v}})) for k, v in pairs]

    def one(self, body: Body, scope: Scope, type_: str, path: str) -> tuple[Body, Scope] | None:
        found = self.blocks(body, scope, type_, path)
        if len(found) > 1:
            self.problem(f"{path}.{type_}", f"there are {len(found)} {type_} blocks, and there can be one", "keep one")
        return found[0] if found else None

    # ---------------------------------------------------------- resources

    def resource(self, kind: str, body: Body, scope: Scope, attr: str, path: str) -> Resource | None:
        """The AWS resource an ARN argument names (see the module's docstring)."""
        node = body.attributes.get(attr)
        if node is None:
            self.problem(path, f"there is no {attr}", f"give the {KIND_NAMES[kind]}'s ARN")
            return None
        steps = _reference(node)
        found = self._direct(kind, steps, scope) if steps else None
        if found is None:
            found = self._evaluated(kind, node, scope)
        if found.name is None:
            if found.key:
                fix = f"name it: --resource {found.key}=<{_NOUN[kind]}>"
            else:
                fixes = [g.fix for g in self.session.gaps if g.fix]
                fix = fixes[0] if fixes else f"write the {KIND_NAMES[kind]}'s ARN"
            self.problem(path, f"cannot tell which {KIND_NAMES[kind]} {found.written} is", fix)
        return found

    def _key(self, *addresses: str) -> str:
        """The key ``--resource`` names a resource by: its full address (`addresses` are full ones), or,
        if the user gave it so, the address written in the application's module."""
        prefix = self.module.address
        candidates = [*addresses] + [a.removeprefix(prefix) for a in addresses if prefix and a.startswith(prefix)]
        for c in candidates:
            if self.bindings.resource(c) is not None:
                return c
        return candidates[0]

    def _direct(self, kind: str, steps: list[Step], scope: Scope) -> Resource | None:
        """A reference to a stream, delivery stream, function or bucket of the files: the name its block
        gives; None when `steps` are not such a reference."""
        data = steps[0] == "data"
        rest = steps[1:] if data else steps
        if len(rest) not in (3, 4) or isinstance(rest[0], _Index) or isinstance(rest[1], _Index):
            return None
        type_, label, attr = rest[0], rest[1], rest[-1]
        index = rest[2] if len(rest) == 4 else None
        named = _NAMED.get(type_)
        if named is None or not isinstance(attr, str) or attr not in named.attrs or isinstance(index, str):
            return None
        address = f"{'data.' if data else ''}{type_}.{label}"
        block = (self.module.data if data else self.module.resources).get((type_, label))
        counted = block is not None and ("count" in block.body.attributes or "for_each" in block.body.attributes)
        if block is not None and counted != (index is not None):
            return None  # an error Terraform reports; evaluated, it says what is wrong
        full = self.module.address + address
        key = self._key(f"{full}[{json.dumps(index.value)}]", full) if index is not None else self._key(full)
        name: str | None = None
        if block is not None:
            self.session.begin()
            try:
                instance = self.module.resource(type_, label, data)
                if index is not None:
                    instance = get_index(instance, index.value)
                value = instance.attr(named.name_attr) if isinstance(instance, _Instance) else None
            except HclError:
                value = None
            if isinstance(value, str) and not self.session.gaps:
                name = value
        return resource_from_name(kind, name, _steps_text(steps), key, self.bindings)

    def _evaluated(self, kind: str, node: Node, scope: Scope) -> Resource:
        written = _written(node)
        self.session.begin()
        try:
            value = evaluate(node, scope)
        except HclError as e:
            value = Unknown(written, str(e))
        if isinstance(value, Lazy):
            value = Unknown(written, "it is a resource, not an ARN")
        if isinstance(value, Unknown):
            self.session.gap(value)  # its fix (a --parameter) is the one to give
        distinct = list(dict.fromkeys(a for a in self.session.refs if _names_resource(a)))
        key = None
        if len(distinct) == 1 or (distinct and _MODULE_CALL.fullmatch(distinct[0])):
            key = self._key(distinct[0])
        if isinstance(value, str):
            return resource_from_arn(kind, value, written, key, self.bindings)
        return resource_from_name(kind, None, written, key, self.bindings)

    # ---------------------------------------------------------- the model

    def read(self) -> Application | None:
        type_, label = self.block.labels
        body, scope = self.block.body, self.scope
        sql: tuple[Body, Scope] | None = None
        config: tuple[Body, Scope] | None = None
        if type_ == _V2:
            config = self.one(body, scope, "application_configuration", "")
            sql = self.one(*config, "sql_application_configuration", "application_configuration") if config else None
            runtime = body.attributes.get("runtime_environment")
            self.session.begin()
            try:
                value = evaluate(runtime, scope) if runtime is not None else None
            except HclError:
                value = None
            if value != "SQL-1_0" and (isinstance(value, str) or sql is None):
                return None  # a Flink or Zeppelin application
        name = self.text(body, scope, "name", "name")
        if name is None or "${" in name:
            name = label
        description = ""
        if "description" in body.attributes:
            self.session.begin()
            try:
                d = evaluate(body.attributes["description"], scope)
                description = d if isinstance(d, str) else ""
            except HclError:
                pass
        code = self._code_v2(config) if type_ == _V2 else self._code_v1(body, scope)
        app = Application(name, self.origin, code, description)
        if type_ == _V1:
            self._contents(app, body, scope, "", _V1_NAMES)
        elif sql is not None:
            self._contents(app, *sql, "application_configuration.sql_application_configuration.", _V2_NAMES)
        app.problems.extend(self.problems)
        app.notes.extend(self.notes)
        return app

    def _code_v1(self, body: Body, scope: Scope) -> str:
        if "code" not in body.attributes:
            self.problem("code", "the application has no code", "give it its SQL (a heredoc, file(...) ...)")
            return ""
        return self.text(body, scope, "code", "code") or ""

    def _code_v2(self, config: tuple[Body, Scope] | None) -> str:
        path = "application_configuration.application_code_configuration"
        code_config = self.one(*config, "application_code_configuration", path.rsplit(".", 1)[0]) if config else None
        content = self.one(*code_config, "code_content", path) if code_config else None
        path += ".code_content"
        if content is None or "text_content" not in content[0].attributes:
            elsewhere = content is not None and content[0].first("s3_content_location") is not None
            what = "the SQL is not in the files (an S3 object)" if elsewhere else "the application has no SQL code"
            self.problem(path, what, "put the SQL in text_content, or import the DescribeApplication JSON")
            return ""
        return self.text(*content, "text_content", f"{path}.text_content") or ""

    def _contents(self, app: Application, body: Body, scope: Scope, prefix: str, n: _Names) -> None:
        inputs = self.blocks(body, scope, n.input, prefix + n.input)
        if len(inputs) > 1:
            self.problem(prefix + n.input, f"there are {len(inputs)} inputs, and KDA takes one", "keep one")
        for i, (b, s) in enumerate(inputs):
            found = self._input(b, s, prefix + n.input + (f"[{i}]" if len(inputs) > 1 else ""), n)
            if found:
                app.inputs.append(found)
        outputs = self.blocks(body, scope, n.output, prefix + n.output)
        if len(outputs) > 3:
            self.problem(prefix + n.output, f"there are {len(outputs)} outputs, and KDA takes three", "keep three")
        for i, (b, s) in enumerate(outputs):
            output = self._output(b, s, f"{prefix}{n.output}[{i}]" if len(outputs) > 1 else prefix + n.output, n)
            if output:
                app.outputs.append(output)
        references = self.blocks(body, scope, n.reference, prefix + n.reference)
        if len(references) > 1:
            self.problem(prefix + n.reference, f"there are {len(references)} reference data sources, and KDA takes one",
                         "keep one")  # fmt: skip
        for i, (b, s) in enumerate(references):
            ref = self._reference_data(b, s, prefix + n.reference + (f"[{i}]" if len(references) > 1 else ""), n)
            if ref:
                app.references.append(ref)

    def _known(self, body: Body, path: str, names: set[str]) -> None:
        """A note for each argument or block the provider does not have here (written by mistake, or
        for another resource type): Terraform would reject it, and it is left out."""
        block = path.rsplit(".", 1)[-1].split("[")[0]
        written = [
            *body.attributes,
            *(b.labels[0] if b.type == "dynamic" and b.labels else b.type for b in body.blocks),
        ]
        for name in dict.fromkeys(written):
            if name not in names:
                self.notes.append(Note(f"{self.origin}: {path}.{name}",
                                       f"{block} has no {name} (Terraform would reject it): left out"))  # fmt: skip

    def _input(self, body: Body, scope: Scope, path: str, n: _Names) -> Input | None:
        self._known(body, path, {"name_prefix", n.kinesis, n.firehose, n.parallelism, n.processing, n.schema, n.start})
        prefix = self.text(body, scope, "name_prefix", f"{path}.name_prefix")
        kinesis = self.one(body, scope, n.kinesis, path)
        firehose = self.one(body, scope, n.firehose, path)
        source_: Resource | None
        if kinesis:
            source_ = self.resource("kinesis", *kinesis, "resource_arn", f"{path}.{n.kinesis}.resource_arn")
        elif firehose:
            source_ = self.resource("firehose", *firehose, "resource_arn",
                                    f"{path}.{n.firehose}.resource_arn")  # fmt: skip
        else:
            self.problem(path, "the input reads neither a Kinesis data stream nor a Firehose delivery stream",
                         f"give it a {n.kinesis} or a {n.firehose} block")  # fmt: skip
            return None
        schema_block = self.one(body, scope, n.schema, path)
        if schema_block is None:
            self.problem(f"{path}.{n.schema}", "the input has no schema", "give its record format and columns")
            return None
        schema = self._schema(*schema_block, f"{path}.{n.schema}", n)
        count = 1
        parallelism = self.one(body, scope, n.parallelism, path)
        if parallelism and "count" in parallelism[0].attributes:
            found = self.integer(*parallelism, "count", f"{path}.{n.parallelism}.count")
            if found is not None:
                if not 1 <= found <= 64:
                    self.problem(f"{path}.{n.parallelism}.count", f"{found} is not between 1 and 64",
                                 "give a count KDA takes")  # fmt: skip
                count = max(1, min(found or 1, 64))
        preprocessor = None
        processing = self.one(body, scope, n.processing, path)
        if processing:
            processor = self.one(*processing, n.processor, f"{path}.{n.processing}")
            if processor:
                preprocessor = self.resource("lambda", *processor, "resource_arn",
                                             f"{path}.{n.processing}.{n.processor}.resource_arn")  # fmt: skip
        start = None
        starts = self.blocks(body, scope, n.start, path)
        if starts:
            start = self.text(*starts[0], n.start_attr, f"{path}.{n.start}.{n.start_attr}", required=False)
            if start is not None and start not in ("NOW", "TRIM_HORIZON", "LAST_STOPPED_POINT"):
                self.problem(f"{path}.{n.start}.{n.start_attr}", f"{start!r} is not a starting position",
                             "give NOW, TRIM_HORIZON or LAST_STOPPED_POINT")  # fmt: skip
                start = None
        if not prefix or source_ is None or schema is None:
            return None
        return Input(prefix, source_, schema, count, preprocessor, start)

    def _schema(self, body: Body, scope: Scope, path: str, n: _Names) -> Schema | None:
        self._known(body, path, {n.columns, "record_encoding", "record_format"})
        fmt = self.one(body, scope, "record_format", path)
        if fmt:
            self._known(fmt[0], f"{path}.record_format", {"record_format_type", "mapping_parameters"})
        params = self.one(*fmt, "mapping_parameters", f"{path}.record_format") if fmt else None
        if params:
            self._known(params[0], f"{path}.record_format.mapping_parameters", {n.json, n.csv})
        mp = f"{path}.record_format.mapping_parameters"
        json_params = self.one(params[0], params[1], n.json, mp) if params else None
        csv_params = self.one(params[0], params[1], n.csv, mp) if params else None
        declared = None
        if n is _V2_NAMES and fmt is not None and "record_format_type" in fmt[0].attributes:
            declared = self.text(*fmt, "record_format_type", f"{path}.record_format.record_format_type")
        kind = "CSV" if csv_params else "JSON"
        if declared is not None and declared.upper() != kind and (json_params or csv_params):
            self.problem(f"{path}.record_format.record_format_type", f"it says {declared}, and the mapping parameters "
                         f"are {kind}'s", "make them agree")  # fmt: skip
        elif declared is not None and declared.upper() in ("JSON", "CSV"):
            kind = declared.upper()
        if kind == "JSON":
            row_path = "$"
            if json_params:
                row_path = self.text(*json_params, "record_row_path",
                                     f"{mp}.{n.json}.record_row_path", required=False) or "$"  # fmt: skip
            record = RecordFormat("JSON", row_path=row_path)
        else:
            rows, cols = "\n", ","
            if csv_params:
                rows = self.text(*csv_params, "record_row_delimiter",
                                 f"{mp}.{n.csv}.record_row_delimiter") or "\n"  # fmt: skip
                cols = self.text(*csv_params, "record_column_delimiter",
                                 f"{mp}.{n.csv}.record_column_delimiter") or ","  # fmt: skip
            record = RecordFormat("CSV", row_delimiter=rows, column_delimiter=cols)
        columns = []
        for i, (cb, cs) in enumerate(self.blocks(body, scope, n.columns, f"{path}.{n.columns}")):
            where = f"{path}.{n.columns}[{i}]"
            name = self.text(cb, cs, "name", f"{where}.name")
            sql_type = self.text(cb, cs, "sql_type", f"{where}.sql_type")
            mapping = self.text(cb, cs, "mapping", f"{where}.mapping", required=False)
            if name and sql_type:
                columns.append(Column(name, sql_type, mapping if mapping and kind == "JSON" else None))
        if not columns:
            self.problem(f"{path}.{n.columns}", "the schema has no column", "declare the columns of the records")
            return None
        encoding = self.text(body, scope, "record_encoding", f"{path}.record_encoding", required=False)
        return Schema(record, tuple(columns), encoding)

    def _output(self, body: Body, scope: Scope, path: str, n: _Names) -> Output | None:
        self._known(body, path, {"name", n.destination_schema, *(b for b, _ in n.outputs)})
        name = self.text(body, scope, "name", f"{path}.name")
        schema = self.one(body, scope, n.destination_schema, path)
        fmt_path = f"{path}.{n.destination_schema}.record_format_type"
        fmt = self.text(*schema, "record_format_type", fmt_path) if schema else None
        if schema is None:
            self.problem(f"{path}.{n.destination_schema}", "the output has no record format", "give JSON or CSV")
        elif fmt is not None and fmt.upper() not in ("JSON", "CSV"):
            self.problem(f"{path}.{n.destination_schema}.record_format_type", f"{fmt!r} is not JSON or CSV", "give one")
            fmt = None
        destination = None
        for block_name, kind in n.outputs:
            found = self.one(body, scope, block_name, path)
            if found:
                destination = self.resource(kind, *found, "resource_arn", f"{path}.{block_name}.resource_arn")
                break
        else:
            self.problem(path, "the output has no destination", f"give it one of {', '.join(b for b, _ in n.outputs)}")
        if not name or fmt is None or destination is None:
            return None
        return Output(name, destination, fmt.upper())

    def _reference_data(self, body: Body, scope: Scope, path: str, n: _Names) -> ReferenceData | None:
        self._known(body, path, {"table_name", n.s3, n.reference_schema})
        table = self.text(body, scope, "table_name", f"{path}.table_name")
        s3 = self.one(body, scope, n.s3, path)
        if s3 is None:
            self.problem(f"{path}.{n.s3}", "the reference data source has no S3 object", "give its bucket and key")
            return None
        bucket = self.resource("bucket", *s3, "bucket_arn", f"{path}.{n.s3}.bucket_arn")
        key = self.text(*s3, "file_key", f"{path}.{n.s3}.file_key")
        schema_block = self.one(body, scope, n.reference_schema, path)
        if schema_block is None:
            self.problem(f"{path}.{n.reference_schema}", "the reference data source has no schema",
                         "give its record format and columns")  # fmt: skip
            return None
        schema = self._schema(*schema_block, f"{path}.{n.reference_schema}", n)
        if not table or bucket is None or not key or schema is None:
            return None
        return ReferenceData(table, bucket, key, schema)


_MODULE_CALL = re.compile(r"(?:module\.[\w-]+(?:\[[^\]]*\])?\.)*module\.[\w-]+")
_MODULE_PREFIX = re.compile(r"(?:module\.[\w-]+(?:\[[^\]]*\])?\.)*")


def _names_resource(address: str) -> bool:
    """Whether a reference (a full address) may be what names the resource an ARN argument means: a
    stream, a delivery stream, a function, a bucket, or a module (which may make one)."""
    if _MODULE_CALL.fullmatch(address):
        return True
    rest = address[_MODULE_PREFIX.match(address).end() :]  # type: ignore[union-attr]
    return rest.removeprefix("data.").split(".")[0] in _NAMED


def _written(node: Node) -> str:
    """How an argument was written, for messages: a plain string as its text, else the expression."""
    if node.data == "expr_term" and len(node.children) == 1 and getattr(node.children[0], "data", None) == "string":
        string = node.children[0]
        parts = [c for c in string.children if hasattr(c, "data")]
        if all(len(p.children) == 1 and getattr(p.children[0], "type", None) == "STRING_CHARS" for p in parts):
            try:
                return str(evaluate(node, Scope(Session(Path(".")), _no_names)))
            except HclError:
                pass
    return source(node)
