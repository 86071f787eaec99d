"""Interval and duration values by the rules of docs/syntax.md ("Interval values").

The data comes from ``resources/overjoin-lexicon.json``, the file the JVM parser reads too, and
every function here has its twin in ``jvm/.../parser/IntervalValues.scala``: the two parsers must
give every literal the same value or the same error (``tests/spark/test_parser_agreement.py``).
Values are exact (:class:`decimal.Decimal`), at most nanoseconds in a fraction of a second, and
truncated to microseconds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "BadValue",
    "VariableUnit",
    "base_unit",
    "duration",
    "expected",
    "expected_form",
    "fields",
    "fits_bigint",
    "lexicon",
    "number_run_end",
    "pairs",
    "single",
    "split_pairs",
    "step_number",
    "unit_words",
]

_MAX_MICROS = 2**63 - 1


@dataclass(frozen=True)
class BadValue:
    """The value does not fit its unit: ``detail`` says what was expected (OJ106)."""

    detail: str


@dataclass(frozen=True)
class VariableUnit:
    """The value names a unit whose length varies (OJ101)."""

    unit: str


Result = int | BadValue | VariableUnit


@lru_cache(maxsize=1)
def lexicon() -> dict[str, Any]:
    """The shared grammar data."""
    text = resources.files("overjoin").joinpath("resources/overjoin-lexicon.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _re(pattern: str) -> re.Pattern[str]:
    # ASCII: Java's \d and \s match ASCII only, and so must ours.
    return re.compile(pattern, re.ASCII)


def expected(key: str, **params: str) -> str:
    """An ``expected`` message of the lexicon with its ``<name>`` placeholders filled."""
    text: str = lexicon()["expected"][key]
    for name, value in params.items():
        text = text.replace(f"<{name}>", value)
    return text


def base_unit(word: str) -> str:
    """``SECONDS`` -> ``SECOND``; other words upper-cased as they are."""
    lex = lexicon()
    upper = word.upper()
    if upper.endswith("S") and (upper[:-1] in lex["unitMicros"] or upper[:-1] in lex["variableUnits"]):
        return upper[:-1]
    return upper


@lru_cache(maxsize=1)
def unit_words() -> frozenset[str]:
    """Every word that names a unit, fixed or variable, singular or plural."""
    lex = lexicon()
    units = list(lex["unitMicros"]) + list(lex["variableUnits"])
    return frozenset(u for unit in units for u in (unit, unit + "S"))


def _number(unit: str) -> str:
    lex = lexicon()
    pattern: str = lex["decimal"] if unit in lex["fractionalUnits"] else lex["integer"]
    return pattern.removeprefix("[+-]?")


def _micros(value: str, unit: str) -> int:
    return int((Decimal(value) * lexicon()["unitMicros"][unit]).to_integral_value(rounding=ROUND_DOWN))


def _bounded(total: int) -> Result:
    return total if total <= _MAX_MICROS else BadValue(expected("tooLarge"))


def single(body: str, unit: str) -> Result:
    """``'v' UNIT`` (singular fixed unit, unsigned value)."""
    if _re("^" + _number(unit) + "$").fullmatch(body):
        return _bounded(_micros(body, unit))
    return BadValue(expected_form(unit, None))


def fields(body: str, unit: str, to: str) -> Result:
    """``'v' UNIT TO UNIT2``: the fields of the form, separated as the standard writes them."""
    lex = lexicon()
    order: list[str] = lex["fieldOrder"]
    if unit not in order or to not in order or order.index(unit) >= order.index(to):
        return BadValue(expected_form(unit, to))
    names = order[order.index(unit) : order.index(to) + 1]
    parts = ["(" + _number(f) + ")" for f in names]
    pattern = parts[0] + r"\s+" + ":".join(parts[1:]) if names[0] == "DAY" else ":".join(parts)
    match = _re("^" + pattern + "$").fullmatch(body)
    if match is None or any(Decimal(v) >= lex["fieldLimits"][f] for f, v in list(zip(names, match.groups()))[1:]):
        return BadValue(expected_form(unit, to))
    return _bounded(sum(_micros(v, f) for f, v in zip(names, match.groups())))


def split_pairs(body: str) -> list[tuple[str, str]] | None:
    """The (number, unit word) pairs of ``'1 hour 30 minutes'``, or None when it is not only pairs."""
    text = body.strip()
    found = list(_re(lexicon()["multiUnitPair"]).finditer(text))
    if not found:
        return None
    covered = "".join(m.group(0) for m in found)
    if re.sub(r"\s", "", covered, flags=re.ASCII) != re.sub(r"\s", "", text, flags=re.ASCII):
        return None
    return [(m.group(1), m.group(2)) for m in found]


def pairs(values: list[tuple[str, str]]) -> Result:
    """The total of (number, unit word) pairs; a negative pair is the caller's to refuse."""
    lex = lexicon()
    total = 0
    for number, word in values:
        unit = base_unit(word)
        if unit in lex["variableUnits"]:
            return VariableUnit(unit)
        if unit not in lex["unitMicros"]:
            return BadValue(expected("multiUnit"))
        unsigned = number[1:] if number[:1] in "+-" and number else number
        if not _re("^" + _number(unit) + "$").fullmatch(unsigned):
            return BadValue(expected("multiUnit"))
        total += _micros(unsigned, unit)
    return _bounded(total)


def expected_form(unit: str, to: str | None) -> str:
    """What a value in ``unit`` [``TO to``] must look like."""
    lex = lexicon()
    if to is None:
        if unit in lex["fractionalUnits"]:
            return expected("seconds")
        return expected("wholeUnits", units=unit.lower() + "s")
    order: list[str] = lex["fieldOrder"]
    if unit not in order or to not in order or order.index(unit) >= order.index(to):
        return expected("notAForm", unit=unit, to=to)
    shown = [lex["fieldShown"][f] for f in order[order.index(unit) : order.index(to) + 1]]
    form = shown[0] + " " + ":".join(shown[1:]) if unit == "DAY" else ":".join(shown)
    return expected("fields", form=form)


def duration(text: str) -> int | None:
    """A Lenses duration (``500ms``, ``1.5m``) in microseconds, or None when ``text`` is not one."""
    lex = lexicon()
    match = re.fullmatch(lex["durationPattern"], text, re.ASCII | re.IGNORECASE)
    if match is None:
        return None
    micros = int(
        (Decimal(match.group(1)) * lex["durationMicros"][match.group(2).lower()]).to_integral_value(rounding=ROUND_DOWN)
    )
    return micros if micros <= _MAX_MICROS else None


def fits_bigint(digits: str) -> bool:
    """Whether unsigned ``digits`` fit a BIGINT, judged on the text (a number of thousands of
    digits is never converted)."""
    significant = digits.lstrip("0")
    top = str(_MAX_MICROS)
    return len(significant) < len(top) or (len(significant) == len(top) and significant <= top)


def step_number(text: str) -> str | None:
    """What is wrong with the number of ``STEP(ts BY n)`` as written, or None: digits with an
    optional fraction that Spark can hold (a BIGINT, or a DECIMAL of at most 38 digits), above zero.
    The twin of ``IntervalValues.stepNumber``."""
    lex = lexicon()
    if not re.fullmatch(lex["stepNumber"], text, re.ASCII):
        return expected("stepNumber")
    whole, _, fraction = text.partition(".")
    digits = whole.lstrip("0")
    top = lex["maxStepInteger"]
    if fraction:
        too_large = len(digits) + len(fraction) > lex["maxStepDigits"]
    else:
        too_large = len(digits) > len(top) or (len(digits) == len(top) and digits > top)
    if too_large:
        return expected("stepTooLarge")
    if not digits and not fraction.strip("0"):
        return expected("stepNotPositive")
    return None


def number_run_end(sql: str, start: int) -> int:
    """Where the JVM lexer's number token that starts at ``start`` ends (exclusive): digits,
    letters, dots and underscores, and an exponent's sign (``1.5.5s`` and ``10L`` are one token
    there, several in sqlglot's tokenizer). The twin of the number rule of ``Lexer.scala``."""
    i, n = start, len(sql)
    while i < n:
        ch = sql[i]
        if (
            ch.isalnum()
            or ch in "._"
            or (
                ch in "+-"
                and i + 1 < n
                and sql[i + 1].isdigit()
                and sql[i - 1] in "eE"
                and all(d.isdigit() or d == "." for d in sql[start : i - 1])
            )
        ):
            i += 1
        else:
            break
    return i
