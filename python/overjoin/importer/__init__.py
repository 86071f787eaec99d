"""``overjoin import``: a Kinesis Data Analytics SQL application's definition as the SQL script that
runs it in ``overjoin server``.

A definition is a CloudFormation template (YAML or JSON, ``cdk synth`` output included), Terraform
(a ``.tf`` file or a folder), or the Kinesis Analytics API's JSON (a ``DescribeApplication`` response,
a ``CreateApplication`` request). One reader per format (:mod:`.cloudformation`, :mod:`.terraform`,
:mod:`.api`) reads it into one model (:mod:`.model`); :mod:`.script` writes the script::

    result = import_definition(Path("app.yaml"), Bindings(resources={"OrdersStream": "orders"}))
    print(result.script)
    for line in result.messages(): print(line, file=sys.stderr)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from overjoin.importer.model import Application, Note, Problem
from overjoin.importer.names import Bindings

__all__ = ["Bindings", "ImportResult", "import_definition"]


@dataclass
class ImportResult:
    """What an import made: the script, the applications, and what the user must hear."""

    script: str
    applications: list[Application]
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every part of every application is in the script (``overjoin import`` exits 0)."""
        return bool(self.applications) and not self.problems

    def messages(self) -> list[str]:
        """Lines for stderr: problems first (each says what to do), then notes and unused values."""
        out = [f"error: {p.line()}" for p in self.problems]
        out += [f"note: {n.line()}" for n in self.notes]
        out += [f"warning: {u}" for u in self.unused]
        return out


def _reader(path: Path) -> str:
    if path.is_dir():
        if any(path.glob("*.tf")):
            return "terraform"
        raise ValueError(f"{path}: a folder is read as Terraform, and it holds no .tf file")
    if path.suffix == ".tf":
        return "terraform"
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{path}: not JSON: {e}") from None
        from overjoin.importer.api import is_api_json
        from overjoin.importer.cloudformation import is_template

        if is_template(data):
            return "cloudformation"
        if is_api_json(data):
            return "api"
        raise ValueError(
            f"{path}: JSON that is neither a CloudFormation template (no Resources) nor the Kinesis Analytics API's "
            "(DescribeApplication's ApplicationDetail, or a CreateApplication request)"
        )
    return "cloudformation"


def import_definition(path: Path, bindings: Bindings, var_files: Sequence[Path] = ()) -> ImportResult:
    """Reads the definition at `path` and writes its script.

    Raises:
        ValueError: the file cannot be read as any definition (the message names it and why).
    """
    if not path.exists():
        raise ValueError(f"{path}: no such file or folder")
    kind = _reader(path)
    if kind == "terraform":
        from overjoin.importer.terraform import read_terraform

        apps = read_terraform(path, bindings, var_files)
    elif kind == "api":
        from overjoin.importer.api import read_api

        apps = read_api(path, bindings)
    else:
        from overjoin.importer.cloudformation import read_cloudformation

        apps = read_cloudformation(path, bindings)
    if not apps:
        raise ValueError(
            f"{path}: no Kinesis Data Analytics SQL application in it (AWS::KinesisAnalytics::Application, "
            "AWS::KinesisAnalyticsV2::Application with RuntimeEnvironment SQL-1_0, aws_kinesis_analytics_application, "
            "aws_kinesisanalyticsv2_application, or the API's application JSON)"
        )
    from overjoin.importer.script import write_script

    script = write_script(apps, path.name)
    problems = [p for a in apps for p in a.problems]
    notes = [n for a in apps for n in a.notes]
    return ImportResult(script, apps, problems, notes, bindings.unused())
