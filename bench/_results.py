"""``bench/RESULTS.md``: one section per benchmark, each replaced in place when it is run again."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["RESULTS", "replace_section"]

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def replace_section(title: str, body: str, path: Path = RESULTS) -> None:
    """Write the section ``## title`` with ``body`` (markdown), keeping the file's other sections."""
    heading = f"## {title}"
    section = f"{heading}\n\n{body.strip()}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    text = pattern.sub(lambda _: section + "\n", text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
