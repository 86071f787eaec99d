"""Diagnostics: what the validator reports, where, and how it is printed."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from overjoin.errors import condition, format_message


@dataclass(frozen=True)
class Diagnostic:
    """One finding, positioned on the user's text.

    ``line``/``column`` are 1-based and point at the first character of the offending text;
    ``end_line``/``end_column`` at its last character (inclusive). ``code`` and ``condition`` come
    from the shared catalogue (``OJ102``, ``OVERJOIN_WINDOW_FOLLOWING``).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    severity: str
    code: str
    condition: str
    message: str
    hint: str
    params: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "params": dict(self.params),
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "code": self.code,
            "condition": self.condition,
            "message": self.message,
            "hint": self.hint,
        }

    def render(self, source: str | None = None, path: str = "<sql>") -> str:
        """Compiler-style text: ``path:line:col: error[OJ102]: message``, the line, a caret, the hint."""
        return render(self, source, path)


def render(diagnostic: Diagnostic, source: str | None = None, path: str = "<sql>") -> str:
    """Render ``diagnostic`` the way compilers do, quoting ``source``'s line when given."""
    d = diagnostic
    out = [f"{path}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}"]
    lines = source.splitlines() if source is not None else []
    if 0 < d.line <= len(lines):
        text = lines[d.line - 1].replace("\t", " ")
        last = d.end_column if d.end_line == d.line else len(text)
        width = max(1, min(last, max(len(text), d.column)) - d.column + 1)
        out.append(f"  {text}")
        out.append(f"  {' ' * (d.column - 1)}^{'~' * (width - 1)}")
    if d.hint:
        out.append(f"  hint: {d.hint}")
    return "\n".join(out)


class Text:
    """The whole text: turns character offsets into 1-based (line, column)."""

    def __init__(self, sql: str) -> None:
        self.sql = sql
        self._starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", sql)]

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.sql)))
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


class Reporter:
    """Collects diagnostics for one text, filling catalogue templates."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.found: list[tuple[int, Diagnostic]] = []
        self._seen: set[tuple[int, str]] = set()

    def add(self, cond: str, span: tuple[int, int] | None, severity: str = "error", **params: Any) -> None:
        start, end = span if span is not None else (0, 0)
        if (start, cond) in self._seen:
            return
        self._seen.add((start, cond))
        entry = condition(cond)
        line, column = self.text.position(start)
        end_line, end_column = self.text.position(max(start, end))
        diag = Diagnostic(
            line, column, end_line, end_column, severity, entry.code, cond,
            format_message(entry.message, params), format_message(entry.hint, params),
            {k: str(v) for k, v in params.items()},
        )  # fmt: skip
        self.found.append((start, diag))

    def sorted(self) -> list[Diagnostic]:
        return [d for _, d in sorted(self.found, key=lambda item: item[0])]
