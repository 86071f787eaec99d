"""overjoin's error catalogue: stable codes, message templates and hints.

The catalogue is ``resources/overjoin-error-conditions.json``, shared with the JVM extension.
Each condition has a code (``OJ102``), a message template with ``<param>`` placeholders and a
hint; a condition with a ``subClass`` has sub-conditions named ``PARENT.SUB`` that share its
code. :func:`format_message` fills a template; a placeholder left without a value is kept as
written, so that a missing parameter shows up instead of vanishing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["Condition", "by_code", "catalogue", "condition", "format_message"]

_PLACEHOLDER = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)>")


@dataclass(frozen=True)
class Condition:
    """One entry of the catalogue."""

    name: str
    code: str
    sql_state: str
    message: str
    hint: str


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Condition]:
    """Load the catalogue once: condition name -> :class:`Condition`."""
    text = resources.files("overjoin").joinpath("resources/overjoin-error-conditions.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    out: dict[str, Condition] = {}
    for name, entry in raw.items():
        if name.startswith("_"):
            continue
        out[name] = Condition(name, entry["code"], entry["sqlState"], entry["message"], entry["hint"])
        # A sub-condition is PARENT.SUB, with its parent's code and SQLSTATE.
        for sub, detail in entry.get("subClass", {}).items():
            full = f"{name}.{sub}"
            out[full] = Condition(full, entry["code"], entry["sqlState"], detail["message"], detail["hint"])
    return out


def condition(name: str) -> Condition:
    """Return the condition called ``name``.

    Raises:
        KeyError: no such condition (a bug in the caller: names are constants).
    """
    return catalogue()[name]


def by_code(code: str) -> Condition:
    """Return the condition whose code is ``code`` (``"OJ102"``)."""
    for entry in catalogue().values():
        if entry.code == code:
            return entry
    raise KeyError(code)


def format_message(template: str, params: Mapping[str, object]) -> str:
    """Replace each ``<name>`` in ``template`` by ``params[name]``."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        return str(params[key]) if key in params else match.group(0)

    return _PLACEHOLDER.sub(fill, template)
