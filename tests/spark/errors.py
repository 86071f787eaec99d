"""What tests read from overjoin's and Spark's error messages."""

from __future__ import annotations


def caret_column(message: str) -> int:
    """The column of the ``^`` under the statement in a parse error's message: the offset of the
    offending text in a one-line statement."""
    carets = next(line for line in message.splitlines() if set(line) <= {"-", "^"} and "^" in line)
    return carets.index("^")
