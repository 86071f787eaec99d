"""CloudFormation's intrinsic functions, evaluated as far as a template alone allows.

``Ref``, ``Fn::Sub`` (both forms), ``Fn::Join``, ``Fn::Select``, ``Fn::Split``, ``Fn::If`` with the
template's ``Conditions`` (``Fn::Equals``, ``Fn::Not``, ``Fn::And``, ``Fn::Or``, ``Condition``),
``Fn::FindInMap`` (with ``DefaultValue``), ``Fn::GetAtt``, ``Fn::ImportValue``, ``Fn::Base64``,
``Fn::Length`` and ``Fn::ToJsonString``; parameters take their ``Default`` unless ``--parameter``
gives a value, and ``Ref: AWS::NoValue`` removes the property it is in.

What a template cannot know (a pseudo parameter such as ``AWS::AccountId``, an attribute of a
resource other than the names and ARNs of the streams, functions and buckets it declares, an export
of another stack) is kept as ``${...}`` text, so that it shows where it is used, and a name that
holds one is not taken for a name (:mod:`overjoin.importer.names`). Every logical ID and export
name met while evaluating a value is recorded in :attr:`Evaluator.keys`, for ``--resource``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from overjoin.importer.names import Bindings

__all__ = ["NO_VALUE", "Evaluator", "NotDecidable"]


class _NoValue:
    def __repr__(self) -> str:
        return "AWS::NoValue"


#: ``Ref: AWS::NoValue``: the property is removed.
NO_VALUE = _NoValue()


def unknown(what: str) -> str:
    """What a template cannot know, as text that shows where it is used (``${AWS.Region}``): without
    colons, so that an ARN that holds it still splits into its parts."""
    return "${" + what.replace("::", ".").replace(":", ".") + "}"


class NotDecidable(ValueError):
    """A condition that depends on something the template cannot know."""


#: The property that names each resource type's resource (its Ref), and its kind and ARN form.
NAMED_TYPES: dict[str, tuple[str, str, str]] = {
    "AWS::Kinesis::Stream": ("Name", "kinesis", "arn:aws:kinesis:${AWS::Region}:${AWS::AccountId}:stream/{}"),
    "AWS::KinesisFirehose::DeliveryStream": (
        "DeliveryStreamName",
        "firehose",
        "arn:aws:firehose:${AWS::Region}:${AWS::AccountId}:deliverystream/{}",
    ),
    "AWS::Lambda::Function": ("FunctionName", "lambda", "arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:function:{}"),
    "AWS::S3::Bucket": ("BucketName", "bucket", "arn:aws:s3:::{}"),
    "AWS::KinesisAnalytics::Application": ("ApplicationName", "", ""),
    "AWS::KinesisAnalyticsV2::Application": ("ApplicationName", "", ""),
}

_PSEUDO = {"AWS::Region", "AWS::AccountId", "AWS::StackName", "AWS::StackId", "AWS::Partition", "AWS::URLSuffix",
           "AWS::NotificationARNs"}  # fmt: skip
_KNOWN_PSEUDO = {"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}


class Evaluator:
    """Evaluates values of one template."""

    def __init__(self, template: Mapping[str, Any], bindings: Bindings) -> None:
        self.template = template
        self.bindings = bindings
        self.resources: Mapping[str, Any] = template.get("Resources") or {}
        self.parameters: Mapping[str, Any] = template.get("Parameters") or {}
        self.mappings: Mapping[str, Any] = template.get("Mappings") or {}
        self.conditions: Mapping[str, Any] = template.get("Conditions") or {}
        self.keys: list[str] = []
        self._deciding: set[str] = set()

    # ---- values -------------------------------------------------------------------------------

    def value(self, node: Any) -> Any:
        """The value of `node`: strings, numbers, lists and dicts; NO_VALUE to remove it."""
        if isinstance(node, dict):
            if len(node) == 1:
                ((key, arg),) = node.items()
                if key == "Ref":
                    return self.ref(str(arg))
                if key == "Condition" and isinstance(arg, str):
                    return self.condition(arg)
                if key.startswith("Fn::"):
                    return self.function(key, arg)
            out = {}
            for k, v in node.items():
                got = self.value(v)
                if got is not NO_VALUE:
                    out[k] = got
            return out
        if isinstance(node, list):
            return [v for v in (self.value(x) for x in node) if v is not NO_VALUE]
        return node

    def text(self, node: Any) -> str:
        """`node` as a string (what a property that takes a string gets)."""
        v = self.value(node)
        if v is NO_VALUE or v is None:
            return ""
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (dict, list)):
            return json.dumps(v)
        return str(v)

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in _PSEUDO:
            given = self.bindings.parameter(name)
            return given if given is not None else _KNOWN_PSEUDO.get(name, unknown(name))
        if name in self.parameters:
            self.keys.append(name)
            given = self.bindings.parameter(name)
            if given is not None:
                return given
            spec = self.parameters[name] or {}
            if "Default" in spec:
                default = spec["Default"]
                if isinstance(default, bool):
                    return "true" if default else "false"
                if str(spec.get("Type", "")).startswith("List<") or spec.get("Type") == "CommaDelimitedList":
                    return [s.strip() for s in str(default).split(",")] if not isinstance(default, list) else default
                return str(default) if not isinstance(default, str) else default
            return unknown(name)
        if name in self.resources:
            self.keys.append(name)
            return self.resource_name(name)
        return unknown(name)

    def resource_name(self, logical_id: str) -> str:
        """What ``Ref`` of a resource gives: the name it is given (or ``--resource``), else ``${id}``."""
        given = self.bindings.resource(logical_id)
        if given is not None:
            return given
        resource = self.resources.get(logical_id) or {}
        named = NAMED_TYPES.get(str(resource.get("Type")))
        if named:
            props = resource.get("Properties") or {}
            if named[0] in props:
                return self.text(props[named[0]])
        return unknown(logical_id)

    def get_att(self, logical_id: str, attribute: str) -> str:
        self.keys.append(logical_id)
        resource = self.resources.get(logical_id) or {}
        named = NAMED_TYPES.get(str(resource.get("Type")))
        if attribute == "Arn" and named and named[2]:
            name = self.resource_name(logical_id)
            if name.startswith("arn:"):
                return name
            arn = named[2].replace("{}", name)
            for pseudo in ("AWS::Region", "AWS::AccountId"):
                given = self.bindings.parameter(pseudo)
                arn = arn.replace("${" + pseudo + "}", given if given is not None else unknown(pseudo))
            return arn
        if named and attribute in ("Name", "FunctionName", "DeliveryStreamName", "BucketName"):
            return self.resource_name(logical_id)
        return unknown(f"{logical_id}.{attribute}")

    def function(self, name: str, arg: Any) -> Any:
        if name == "Fn::GetAtt":
            parts = arg.split(".", 1) if isinstance(arg, str) else [self.text(a) for a in arg]
            return self.get_att(str(parts[0]), str(parts[1]) if len(parts) > 1 else "")
        if name == "Fn::Sub":
            return self.sub(arg)
        if name == "Fn::Join":
            sep, items = arg[0], self.value(arg[1])
            if not isinstance(items, list):
                items = [items]
            return str(self.text(sep)).join(self.text(i) if not isinstance(i, str) else i for i in items)
        if name == "Fn::Select":
            index, items = int(self.text(arg[0])), self.value(arg[1])
            return items[index] if isinstance(items, list) and index < len(items) else "${Fn::Select}"
        if name == "Fn::Split":
            return self.text(arg[1]).split(self.text(arg[0]))
        if name == "Fn::If":
            condition, yes, no = arg
            return self.value(yes) if self.condition(str(condition)) else self.value(no)
        if name == "Fn::FindInMap":
            m, k1, k2 = (self.text(a) for a in arg[:3])
            default = arg[3].get("DefaultValue") if len(arg) > 3 and isinstance(arg[3], dict) else None
            found = ((self.mappings.get(m) or {}).get(k1) or {}).get(k2)
            if found is None:
                return self.value(default) if default is not None else unknown(f"FindInMap {m}.{k1}.{k2}")
            return self.value(found)
        if name == "Fn::ImportValue":
            export = self.text(arg)
            self.keys.append(export)
            given = self.bindings.resource(export)
            return given if given is not None else unknown("ImportValue " + export)
        if name == "Fn::Base64":
            return self.text(arg)
        if name == "Fn::Length":
            v = self.value(arg)
            return len(v) if isinstance(v, list) else 0
        if name == "Fn::ToJsonString":
            return json.dumps(self.value(arg), separators=(",", ":"))
        if name in ("Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"):
            return self.decide({name: arg})
        return unknown(name)

    _SUB = re.compile(r"\$\{(!?)([^}]*)\}")

    def sub(self, arg: Any) -> str:
        if isinstance(arg, list):
            template, variables = str(arg[0]), {k: self.value(v) for k, v in (arg[1] or {}).items()}
        else:
            template, variables = str(arg), {}

        def one(m: re.Match[str]) -> str:
            if m.group(1):  # ${!Literal}
                return "${" + m.group(2) + "}"
            name = m.group(2).strip()
            if name in variables:
                v = variables[name]
                return v if isinstance(v, str) else self.text(v)
            if "." in name and name.split(".", 1)[0] in self.resources:
                logical_id, attribute = name.split(".", 1)
                return self.get_att(logical_id, attribute)
            got = self.ref(name)
            return self.text(got) if not isinstance(got, str) else got

        return self._SUB.sub(one, template)

    def structure(self, node: Any) -> Any:
        """`node` with the choices that decide a template's shape made (``Fn::If``, ``Ref:
        AWS::NoValue`` as None), its values left as written (for :meth:`text`, which records the
        logical IDs a value names)."""
        while isinstance(node, dict) and len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Fn::If":
                condition, yes, no = arg
                node = yes if self.condition(str(condition)) else no
            elif key == "Ref" and arg == "AWS::NoValue":
                return None
            else:
                break
        return node

    # ---- conditions ---------------------------------------------------------------------------

    def condition(self, name: str) -> bool:
        if name not in self.conditions:
            raise NotDecidable(f"the condition {name} is not in the template's Conditions")
        if name in self._deciding:
            raise NotDecidable(f"the condition {name} refers to itself")
        self._deciding.add(name)
        try:
            return self.decide(self.conditions[name])
        finally:
            self._deciding.discard(name)

    def decide(self, node: Any) -> bool:
        if isinstance(node, dict) and len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Condition":
                return self.condition(str(arg))
            if key == "Fn::Equals":
                a, b = (self.text(x) for x in arg)
                if "${" in a or "${" in b:
                    raise NotDecidable(f"Fn::Equals compares {a!r} with {b!r}, which the template alone does not know")
                return a == b
            if key == "Fn::Not":
                return not self.decide(arg[0])
            if key == "Fn::And":
                return all(self.decide(a) for a in arg)
            if key == "Fn::Or":
                return any(self.decide(a) for a in arg)
        if isinstance(node, bool):
            return node
        if isinstance(node, str) and node.lower() in ("true", "false"):
            return node.lower() == "true"
        raise NotDecidable(f"{node!r} is not a condition")
