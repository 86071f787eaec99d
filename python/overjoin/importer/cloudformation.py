"""Reading KDA SQL applications from a CloudFormation template (YAML with its short-form tags, or
JSON; also what ``cdk synth`` writes).

Resources read: ``AWS::KinesisAnalytics::Application``, ``::ApplicationOutput`` and
``::ApplicationReferenceDataSource``, and ``AWS::KinesisAnalyticsV2::Application`` (with
``RuntimeEnvironment: SQL-1_0``), ``::ApplicationOutput`` and ``::ApplicationReferenceDataSource``,
in either namespace's mix (AWS's own V2 example pairs a V2 application with V1 outputs). An output or
a reference data source belongs to the application its ``ApplicationName`` names (``!Ref App`` or
the application's name). A resource whose ``Condition`` is false is left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from overjoin.importer.intrinsics import NO_VALUE, Evaluator, NotDecidable
from overjoin.importer.model import Application, Problem, Resource
from overjoin.importer.names import Bindings, resource_from_arn
from overjoin.importer.shapes import Reading, input_of, output_of, reference_of

__all__ = ["load_template", "read_cloudformation"]

_APPS = ("AWS::KinesisAnalytics::Application", "AWS::KinesisAnalyticsV2::Application")
_OUTPUTS = ("AWS::KinesisAnalytics::ApplicationOutput", "AWS::KinesisAnalyticsV2::ApplicationOutput")
_REFERENCES = ("AWS::KinesisAnalytics::ApplicationReferenceDataSource",
               "AWS::KinesisAnalyticsV2::ApplicationReferenceDataSource")  # fmt: skip


class _Loader(yaml.SafeLoader):
    """YAML as CloudFormation reads it: the short-form tags as their long forms, dates as strings."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = suffix if suffix in ("Ref", "Condition") else "Fn::" + suffix
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
        if name == "Fn::GetAtt":
            value = str(value).split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {name: value}


_Loader.add_multi_constructor("!", _tag)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def load_template(text: str, path: Path) -> dict[str, Any]:
    """A template's content; JSON when it is JSON, else YAML."""
    stripped = text.lstrip()
    try:
        data = json.loads(text) if stripped.startswith("{") else yaml.load(text, Loader=_Loader)
    except (ValueError, yaml.YAMLError) as e:
        raise ValueError(f"{path}: not a CloudFormation template: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("Resources"), dict):
        raise ValueError(f"{path}: not a CloudFormation template (it has no Resources)")
    return data


def is_template(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("Resources"), dict)


def read_cloudformation(path: Path, bindings: Bindings, text: str | None = None) -> list[Application]:
    """The applications of the template at `path`, in the order of its resources."""
    template = load_template(text if text is not None else path.read_text(encoding="utf-8"), path)
    ev = Evaluator(template, bindings)
    resources: dict[str, Any] = template["Resources"]

    def present(logical_id: str, r: dict[str, Any]) -> bool:
        cond = r.get("Condition")
        if not cond:
            return True
        try:
            return ev.condition(str(cond))
        except NotDecidable:
            return True

    apps: list[tuple[str, Application]] = []
    for logical_id, r in resources.items():
        if not isinstance(r, dict) or r.get("Type") not in _APPS or not present(logical_id, r):
            continue
        app = _application(path, ev, logical_id, r, bindings)
        if app is not None:
            apps.append((logical_id, app))
    for logical_id, r in resources.items():
        if not isinstance(r, dict) or not present(logical_id, r):
            continue
        if r.get("Type") in _OUTPUTS or r.get("Type") in _REFERENCES:
            _attach(path, ev, logical_id, r, apps, bindings)
    return [a for _, a in apps]


def _reading(path: Path, ev: Evaluator, bindings: Bindings) -> Reading:
    def text(node: Any) -> str:
        return ev.text(node)

    def resource(kind: str, node: Any, where: str) -> Resource:
        ev.keys.clear()
        try:
            value = ev.text(node)
        except NotDecidable as e:
            value = "${" + str(e) + "}"
        keys = [k for k in ev.keys if k not in ev.parameters] or list(ev.keys)
        key = keys[0] if len(set(keys)) == 1 else None
        written = _written(node)
        return resource_from_arn(kind, value, written, key, bindings)

    return Reading(text, resource, ev.structure)


def _written(node: Any) -> str:
    """How a template wrote a value, short, for messages."""
    if isinstance(node, dict) and len(node) == 1:
        ((k, v),) = node.items()
        short = k.replace("Fn::", "!") if k.startswith("Fn::") else "!" + k
        if k == "Fn::GetAtt" and isinstance(v, list):
            return f"{short} {'.'.join(str(x) for x in v)}"
        if isinstance(v, str):
            return f"{short} '{v}'" if " " in v or "$" in v else f"{short} {v}"
        if isinstance(v, dict) and len(v) == 1:
            return f"{short} {_written(v)}"
        return f"{short} {json.dumps(v)[:80]}"
    return str(node)


def _application(
    path: Path, ev: Evaluator, logical_id: str, r: dict[str, Any], bindings: Bindings
) -> Application | None:
    props = r.get("Properties") or {}
    kind = r["Type"]
    origin = f"{path.name}: Resources.{logical_id}"
    reading = _reading(path, ev, bindings)
    try:
        if kind.endswith("V2::Application"):
            runtime = ev.text(props.get("RuntimeEnvironment", ""))
            if runtime != "SQL-1_0":
                return None  # a Flink or Zeppelin application
            config = ev.value(props.get("ApplicationConfiguration") or {})
            code_conf = (config or {}).get("ApplicationCodeConfiguration") or {}
            content = code_conf.get("CodeContent") or {}
            if "TextContent" not in content:
                code = ""
                reading.problem(f"{origin}: ApplicationConfiguration.ApplicationCodeConfiguration.CodeContent",
                                "the SQL is not in the template (an S3 object or a zip file)",
                                "put the SQL in CodeContent.TextContent, or import the application's "
                                "DescribeApplication JSON")  # fmt: skip
            else:
                code = str(content["TextContent"])
            sql = reading.get(reading.get(props, "ApplicationConfiguration"), "SqlApplicationConfiguration")
            inputs_node = reading.get(sql, "Inputs")
        else:
            code = ev.text(props.get("ApplicationCode", ""))
            inputs_node = props.get("Inputs")
        name = ev.text(props["ApplicationName"]) if "ApplicationName" in props else logical_id
        description = ev.text(props.get("ApplicationDescription", ""))
    except NotDecidable as e:
        return Application(
            logical_id,
            origin,
            "",
            problems=[Problem(origin, str(e), "give the parameters it depends on with --parameter")],
        )
    app = Application(name, origin, code, description)
    for i, node in enumerate(reading.items(inputs_node)):
        found = input_of(reading, node, f"{origin}: Inputs[{i}]")
        if found:
            app.inputs.append(found)
    app.problems.extend(reading.problems)
    return app


def _attach(path: Path, ev: Evaluator, logical_id: str, r: dict[str, Any], apps: list[tuple[str, Application]],
            bindings: Bindings) -> None:  # fmt: skip
    props = r.get("Properties") or {}
    origin = f"{path.name}: Resources.{logical_id}"
    target = props.get("ApplicationName")
    by_ref = target.get("Ref") if isinstance(target, dict) and set(target) == {"Ref"} else None
    name = ev.text(target) if target is not None else ""
    app = next((a for lid, a in apps if lid == by_ref or a.name == name), None)
    if app is None:
        if len(apps) == 1 and not by_ref:
            app = apps[0][1]
        else:
            return
    reading = _reading(path, ev, bindings)
    try:
        if r["Type"] in _OUTPUTS:
            found = output_of(reading, reading.shape(props.get("Output") or {}), f"{origin}: Output")
            if found:
                app.outputs.append(found)
        else:
            node = reading.shape(props.get("ReferenceDataSource") or {})
            ref = reference_of(reading, node, f"{origin}: ReferenceDataSource")
            if ref:
                app.references.append(ref)
    except NotDecidable as e:
        reading.problem(origin, str(e), "give the parameters it depends on with --parameter")
    app.problems.extend(reading.problems)


__all__ += ["NO_VALUE", "is_template"]
