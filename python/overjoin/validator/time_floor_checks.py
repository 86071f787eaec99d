"""The checks of ``STEP(ts BY interval)`` and ``FLOOR(ts TO unit)`` in a streaming query block
(docs/semantics.md §11), as the JVM parser makes them."""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.tokens import Token

from overjoin import dialect as D
from overjoin import intervals
from overjoin.validator.common import _syntax_error, _time_floors, _token_at
from overjoin.validator.diagnostics import Reporter
from overjoin.validator.model import Block


def check_time_floors(block: Block, reporter: Reporter, tokens: list[Token]) -> None:
    """docs/semantics.md §11: a STEP interval of fixed length and above zero; a FLOOR unit."""
    for node in _time_floors(block.select):
        if isinstance(node, D.TimeStep):
            by = node.args.get("by")
            if not isinstance(by, D.WindowInterval):
                value = D.pos(by, "value")
                if isinstance(by, exp.Literal) and value is not None:
                    problem = intervals.step_number(by.name)
                    if problem is not None:
                        reporter.add("OVERJOIN_SYNTAX_ERROR", value, token=f"'{by.name}'", detail=problem)
                continue
            for pair in [by, *(by.args.get("more") or [])]:
                for key in ("unit", "to"):
                    word = (pair.args.get(key) or "").upper()
                    where = D.pos(pair, key)
                    unit = intervals.base_unit(word) if word else ""
                    if unit in intervals.lexicon()["variableUnits"] and where is not None:
                        token = _token_at(tokens, where[0])
                        if token is not None:
                            _syntax_error(
                                reporter,
                                token,
                                "STEP takes an interval of fixed length (SECOND, MINUTE, "
                                f"HOUR or DAY); for calendar {unit.lower()}s write FLOOR(ts TO {unit})",
                            )
                        break
            literal = by.this
            if literal is not None and re.fullmatch(r"[0:. ]+", literal.name.strip() or "x"):
                start = D.pos(by, "interval")
                if start is not None:
                    written = _text_of(reporter, by)
                    reporter.add(
                        "OVERJOIN_SYNTAX_ERROR",
                        (start[0], start[0] + len(written) - 1),
                        token=written,
                        detail="the interval of STEP must be longer than zero",
                    )
        else:
            unit = node.args["to"].name.upper()
            if intervals.base_unit(unit) not in intervals.lexicon()["floorUnits"]:
                token = next(
                    (
                        t
                        for i, t in enumerate(tokens)
                        if i and tokens[i - 1].text.upper() == "TO" and t.text.upper() == unit
                    ),
                    None,
                )
                if token is not None:
                    _syntax_error(reporter, token, f"expected a unit ({', '.join(intervals.lexicon()['floorUnits'])})")


def _text_of(reporter: Reporter, node: D.WindowInterval) -> str:
    """The interval as written, from INTERVAL to its last unit (or value)."""
    start = D.pos(node, "interval")
    if start is None:
        return ""
    last = [node, *(node.args.get("more") or [])][-1]
    ends = [p[1] for p in (D.pos(last, k) for k in ("literal", "unit", "precision", "to", "to_precision")) if p]
    return reporter.text.sql[start[0] : max(ends, default=start[1]) + 1]
