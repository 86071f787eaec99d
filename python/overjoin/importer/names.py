"""Names of the AWS resources a definition refers to, and the ``--parameter``/``--resource`` values
a user gives ``overjoin import``.

A resource is named, in this order, by a ``--resource KEY=NAME`` (KEY: a CloudFormation logical ID
or export name, a Terraform address such as ``aws_kinesis_stream.clicks``), by the name the same
file gives the resource it refers to, or by its ARN (``arn:aws:kinesis:...:stream/clicks``).
Parts of an ARN that the file cannot know (``${AWS::Region}``, ``${AWS::AccountId}``) do not matter:
only the name is taken from it, and the region when it is a real one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from overjoin.importer.model import KINDS, Resource

__all__ = ["Bindings", "resource_from_arn", "resource_from_name"]

#: How an ARN's resource part names each kind.
_ARN_NAME = {
    "kinesis": re.compile(r"^stream/(?P<name>[^/]+)$"),
    "firehose": re.compile(r"^deliverystream/(?P<name>[^/]+)$"),
    "lambda": re.compile(r"^function:(?P<name>[^:]+)(?::(?P<qualifier>[^:]+))?$"),
    "bucket": re.compile(r"^(?P<name>[^/]+)(?:/.*)?$"),
}
_SERVICE = {"kinesis": "kinesis", "firehose": "firehose", "lambda": "lambda", "bucket": "s3"}
_UNKNOWN = re.compile(r"\$\{|<|%%")


class Bindings:
    """The ``--parameter`` and ``--resource`` values, and which of them a definition used."""

    def __init__(self, parameters: Mapping[str, str] | None = None, resources: Mapping[str, str] | None = None) -> None:
        self.parameters = dict(parameters or {})
        self.resources = dict(resources or {})
        self._used_parameters: set[str] = set()
        self._used_resources: set[str] = set()

    def parameter(self, name: str) -> str | None:
        if name in self.parameters:
            self._used_parameters.add(name)
            return self.parameters[name]
        return None

    def resource(self, key: str | None) -> str | None:
        """The name ``--resource`` gives `key`, if any (also for ``data.<address>`` and ``module.<name>``
        keys written without their prefix)."""
        if key is None:
            return None
        for candidate in (key, key.removeprefix("data.")):
            if candidate in self.resources:
                self._used_resources.add(candidate)
                return self.resources[candidate]
        return None

    def unused(self) -> list[str]:
        """Messages for the values no definition used (not an error: one set of values may serve several)."""
        out = [
            f"--parameter {k}: no definition read uses it" for k in sorted(set(self.parameters) - self._used_parameters)
        ]
        out += [
            f"--resource {k}: no definition read refers to it"
            for k in sorted(set(self.resources) - self._used_resources)
        ]
        return out


def resource_from_arn(kind: str, arn: str, written: str, key: str | None, bindings: Bindings) -> Resource:
    """The resource an ARN (or a name written where an ARN goes) names; `key` is what ``--resource``
    may name it by."""
    assert kind in KINDS
    given = bindings.resource(key)
    parts = arn.split(":", 5)
    region = None
    name: str | None = None
    if len(parts) == 6 and parts[0] == "arn":
        found = _ARN_NAME[kind].match(parts[5])
        if found and not _UNKNOWN.search(found.group("name")):
            name = found.group("name")
            if kind == "lambda" and found.group("qualifier") and not _UNKNOWN.search(parts[3] + parts[4]):
                name = arn  # a version or alias: the ARN keeps it
        if parts[3] and not _UNKNOWN.search(parts[3]):
            region = parts[3]
    elif arn and not _UNKNOWN.search(arn) and ":" not in arn:
        name = arn
    return Resource(kind, given or name, written, key, region)


def resource_from_name(kind: str, name: str | None, written: str, key: str | None, bindings: Bindings) -> Resource:
    """A resource the file names directly (a Kinesis stream resource's Name, a Terraform ``name``)."""
    given = bindings.resource(key)
    if name is not None and _UNKNOWN.search(name):
        name = None
    return Resource(kind, given or name, written, key)


def service_of(kind: str) -> str:
    return _SERVICE[kind]
