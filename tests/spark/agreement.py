"""One verdict per parser, in a form the two can be compared in.

A verdict is ``None`` (the statement parses) or ``(code, line, column, params)``: the error code
(``OJ106``; every syntax error Spark's own parser reports counts as ``OJ001``), its 1-based line
and column in the statement (``None`` when the error carries no position), and, for overjoin's own
errors, the message parameters (``None`` for Spark's, whose wording is Spark's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import overjoin

Verdict = tuple[str, int | None, int | None, Mapping[str, str] | None] | None

_POSITION = re.compile(r"\(line (\d+), pos (\d+)\)")


def jvm_verdict(spark: Any, sql: str, double_quoted_identifiers: bool = False) -> Verdict:
    """Parse ``sql`` with the session's parser (overjoin's, wrapping Spark's)."""
    from pyspark.errors.exceptions.captured import CapturedException

    parser = spark._jsparkSession.sessionState().sqlParser()
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", str(double_quoted_identifiers).lower())
    try:
        parser.parsePlan(sql)
        return None
    except CapturedException as e:  # pyspark converts the JVM's ParseException
        msg = str(e)
        code = re.search(r"\] (OJ\d{3}):", msg)
        where = _POSITION.search(msg)  # Spark's layout, which overjoin's errors follow: 0-based
        line, col = (int(where.group(1)), int(where.group(2)) + 1) if where else (None, None)
        if code:
            params = {str(k): str(v) for k, v in (e.getMessageParameters() or {}).items()}
            return code.group(1), line, col, params
        return "OJ001", line, col, None
    finally:
        spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")


def py_verdicts(sql: str, schemas: Any = None, double_quoted_identifiers: bool = False) -> list[Verdict]:
    """Validate ``sql`` with the Python validator: every error, in order of position."""
    found = overjoin.validate(sql, schemas, double_quoted_identifiers=double_quoted_identifiers)
    return [(d.code, d.line, d.column, dict(d.params)) for d in found if d.severity == "error"]


def py_verdict(sql: str, schemas: Any = None, double_quoted_identifiers: bool = False) -> Verdict:
    """The validator's first error, if any."""
    found = py_verdicts(sql, schemas, double_quoted_identifiers)
    return found[0] if found else None


def same(jvm: Verdict, py: Verdict) -> bool:
    """The same error: code and position, and for overjoin's own errors the same parameters.
    A JVM error without a position is the same on its code alone."""
    if jvm is None or py is None:
        return jvm is None and py is None
    if jvm[0] != py[0]:
        return False
    if jvm[1] is None:
        return True
    if (jvm[1], jvm[2]) != (py[1], py[2]):
        return False
    return jvm[3] is None or dict(jvm[3]) == dict(py[3] or {})


def agree(jvm: Verdict, py: list[Verdict]) -> bool:
    """Do the JVM's verdict and the validator's diagnostics agree?

    Both accept, or both reject and the JVM's error is one of the validator's. A statement with
    several errors may be reported by its first error in the JVM's reading order, which judges
    overjoin's clauses before Spark reads the rest; the validator reports them all, but a syntax
    error stops it, so when its first error is a syntax error, any JVM error agrees.
    """
    if jvm is None or not py:
        return jvm is None and not py
    if any(same(jvm, p) for p in py):
        return True
    return any(p is not None and p[0] == "OJ001" for p in py)
