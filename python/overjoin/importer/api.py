"""Reading KDA SQL applications from the Kinesis Analytics API's JSON: what CDK, SDK and CLI users can
print or keep.

Accepted, alone or in a JSON list (merged by application name, in order):

* a ``DescribeApplication`` response (``{"ApplicationDetail": {...}}``), v1 (``kinesisanalytics``) or
  v2 (``kinesisanalyticsv2``, ``RuntimeEnvironment: SQL-1_0``);
* a ``CreateApplication`` request (``aws kinesisanalytics[v2] create-application --cli-input-json``);
* ``AddApplicationOutput``, ``AddApplicationReferenceDataSource`` and ``AddApplicationInput`` requests
  (v1's CreateApplication cannot hold reference data: it is added by a second call).

Resources are named by their ARNs (``--resource`` may name one by its ARN too).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from overjoin.importer.model import Application, Resource
from overjoin.importer.names import Bindings, resource_from_arn
from overjoin.importer.shapes import Reading, input_of, output_of, reference_of

__all__ = ["is_api_json", "read_api"]


def _parts(data: Any) -> list[dict[str, Any]]:
    return [d for d in (data if isinstance(data, list) else [data]) if isinstance(d, dict)]


def is_api_json(data: Any) -> bool:
    """Whether `data` is one of the API shapes this reads."""
    keys = {"ApplicationDetail", "Inputs", "ApplicationCode", "ApplicationConfiguration", "Output",
            "ReferenceDataSource", "Input"}  # fmt: skip
    return any(keys & set(d) for d in _parts(data))


def read_api(path: Path, bindings: Bindings, data: Any | None = None) -> list[Application]:
    """The applications of the API JSON at `path`."""
    if data is None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{path}: not JSON: {e}") from None

    def resource(kind: str, node: Any, where: str) -> Resource:
        arn = str(node or "")
        return resource_from_arn(kind, arn, arn or "(no ARN)", arn or None, bindings)

    apps: dict[str, Application] = {}
    for index, part in enumerate(_parts(data)):
        detail = part.get("ApplicationDetail", part)
        where = f"{path.name}" + (f"[{index}]" if isinstance(data, list) else "")
        reading = Reading(lambda node: "" if node is None else str(node), resource)
        name = str(detail.get("ApplicationName") or f"application{index + 1}")
        app = apps.get(name)
        if app is None:
            code = _code(detail)
            if code is None and not any(k in detail for k in ("Output", "ReferenceDataSource", "Input")):
                continue
            app = apps[name] = Application(
                name, f"{where}: {name}", code or "", str(detail.get("ApplicationDescription") or "")
            )
        elif _code(detail):
            app.code = _code(detail) or app.code
        runtime = detail.get("RuntimeEnvironment")
        if runtime and runtime != "SQL-1_0":
            del apps[name]
            continue
        sql = _sql_configuration(detail)
        inputs = list(sql.get("InputDescriptions") or sql.get("Inputs") or [])
        outputs = list(sql.get("OutputDescriptions") or sql.get("Outputs") or [])
        references = list(sql.get("ReferenceDataSourceDescriptions") or sql.get("ReferenceDataSources") or [])
        inputs += [detail["Input"]] if isinstance(detail.get("Input"), dict) else []
        outputs += [detail["Output"]] if isinstance(detail.get("Output"), dict) else []
        references += [detail["ReferenceDataSource"]] if isinstance(detail.get("ReferenceDataSource"), dict) else []
        for i, node in enumerate(inputs):
            found = input_of(reading, node, f"{where}: Inputs[{i}]")
            if found:
                app.inputs.append(found)
        for i, node in enumerate(outputs):
            out = output_of(reading, node, f"{where}: Outputs[{i}]")
            if out:
                app.outputs.append(out)
        for i, node in enumerate(references):
            ref = reference_of(reading, node, f"{where}: ReferenceDataSources[{i}]")
            if ref:
                app.references.append(ref)
        app.problems.extend(reading.problems)
    return list(apps.values())


def _code(detail: dict[str, Any]) -> str | None:
    if isinstance(detail.get("ApplicationCode"), str):
        return str(detail["ApplicationCode"])
    config = detail.get("ApplicationConfigurationDescription") or detail.get("ApplicationConfiguration") or {}
    code = config.get("ApplicationCodeConfigurationDescription") or config.get("ApplicationCodeConfiguration") or {}
    content = code.get("CodeContentDescription") or code.get("CodeContent") or {}
    text = content.get("TextContent")
    return str(text) if isinstance(text, str) else None


def _sql_configuration(detail: dict[str, Any]) -> dict[str, Any]:
    """v1 keeps inputs, outputs and reference data at the top; v2 under its SQL configuration."""
    config = detail.get("ApplicationConfigurationDescription") or detail.get("ApplicationConfiguration") or {}
    sql = config.get("SqlApplicationConfigurationDescription") or config.get("SqlApplicationConfiguration")
    return sql if isinstance(sql, dict) else detail
