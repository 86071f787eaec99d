"""Random join-window specifications, intervals and durations, valid and invalid.

The generated agreement test (``tests/spark/test_parser_agreement.py``) sends every statement made
here through both parsers, the JVM one and the Python validator, and requires the same verdict:
both accept, or both report the same code at the same position with the same message parameters.

Each statement is built from the grammar of docs/syntax.md, with a fair share of the mistakes
users make (``FOLLOWING``, ``UNBOUNDED``, ``MONTH``, negative sizes, bounds in the wrong order,
malformed interval strings, precisions out of range, unknown window names, window names used as
inputs). Everything depends on the seed only.
"""

from __future__ import annotations

import random

__all__ = ["random_duration", "random_interval", "random_size", "random_statement"]

_UNITS = ["SECOND", "SECONDS", "MINUTE", "MINUTES", "HOUR", "HOURS", "DAY", "DAYS", "WEEK",
          "MILLISECOND", "MILLISECONDS", "MICROSECOND", "second", "Minute"]  # fmt: skip
_BAD_UNITS = ["MONTH", "MONTHS", "YEAR", "YEARS", "QUARTER", "FORTNIGHT", "DECADE"]
_TO_FORMS = [("DAY", "HOUR"), ("DAY", "MINUTE"), ("DAY", "SECOND"), ("HOUR", "MINUTE"),
             ("HOUR", "SECOND"), ("MINUTE", "SECOND"), ("SECOND", "MINUTE"), ("MINUTE", "HOUR"),
             ("YEAR", "MONTH"), ("DAY", "DAY")]  # fmt: skip


def _number(rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.55:
        return str(rng.choice([0, 1, 2, 5, 10, 30, 59, 60, 61, 99, 1000]))
    if choice < 0.8:
        digits = rng.choice([1, 3, 6, 9, 10])
        return f"{rng.randint(0, 90)}.{''.join(rng.choice('0123456789') for _ in range(digits))}"
    return rng.choice(["-1", "+2", "x", "", " 5 ", "1e3", "0x10", "5.", ".5", "1,5"])


def _field_value(rng: random.Random, first: str, last: str) -> str:
    order = ["DAY", "HOUR", "MINUTE", "SECOND"]
    if first not in order or last not in order or order.index(first) >= order.index(last):
        return _number(rng)
    fields = order[order.index(first) : order.index(last) + 1]
    values = [_number(rng) if rng.random() < 0.15 else str(rng.randint(0, 70)) for _ in fields]
    if fields[-1] == "SECOND" and rng.random() < 0.4:
        values[-1] += "." + "".join(rng.choice("0123456789") for _ in range(rng.choice([1, 3, 9, 10])))
    if fields[0] == "DAY" and len(values) > 1:
        return values[0] + rng.choice([" ", "  "]) + ":".join(values[1:])
    sep = ":" if rng.random() < 0.95 else "-"
    return sep.join(values)


def _precision(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.8:
        return ""
    return f"({rng.choice(['0', '3', '6', '9', '10', '12'])})"


def random_interval(rng: random.Random) -> str:
    """An ``INTERVAL`` literal in one of Spark's or the standard's forms."""
    form = rng.random()
    minus = "-" if rng.random() < 0.05 else ""
    if form < 0.45:
        unit = rng.choice(_UNITS + _BAD_UNITS[:3]) if rng.random() < 0.9 else rng.choice(_BAD_UNITS)
        base = unit.upper().rstrip("S") or unit
        value = _number(rng) if base != "SECOND" or rng.random() < 0.5 else _field_value(rng, "SECOND", "SECOND")
        return f"INTERVAL {minus}'{value}' {unit}{_precision(rng)}"
    if form < 0.7:
        first, last = rng.choice(_TO_FORMS)
        return f"INTERVAL {minus}'{_field_value(rng, first, last)}' {first}{_precision(rng)} TO {last}{_precision(rng)}"
    if form < 0.88:
        parts = [f"{rng.choice(['1', '2', '30', '1.5', '-1'])} {rng.choice(['hour', 'minutes', 'seconds', 'day', 'month', 'parsecs'])}"
                 for _ in range(rng.randint(1, 3))]  # fmt: skip
        return f"INTERVAL {minus}'{' '.join(parts)}'"
    count = rng.choice(["5", "10", "1.5", "3"])
    return f"INTERVAL {minus}{count} {rng.choice([*_UNITS, 'MONTHS'])}"


def random_duration(rng: random.Random) -> str:
    """A Lenses duration (``5s``, ``500ms``) or a near miss."""
    good = [f"{n}{u}" for n in ("1", "5", "10", "500", "1.5", "0") for u in ("ms", "s", "m", "h", "d")]
    bad = ["5x", "s5", "ms500", "5", "5 s", "-5s", "5S", "1.5.5s", "5sec"]
    return rng.choice(good) if rng.random() < 0.8 else rng.choice(bad)


def random_size(rng: random.Random, kind: str) -> str:
    """The size of a RANGE bound (interval or duration) or of a ROWS bound (row count)."""
    if kind == "ROWS":
        return rng.choice(["0", "1", "2", "10", "-1", "1.5", "INTERVAL '1' SECOND", "x"])
    return random_interval(rng) if rng.random() < 0.75 else random_duration(rng)


def _bound(rng: random.Random, kind: str) -> str:
    roll = rng.random()
    if roll < 0.15:
        return "CURRENT ROW"
    if roll < 0.2:
        return rng.choice(["UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING", "CURRENT"])
    direction = "PRECEDING" if rng.random() < 0.9 else rng.choice(["FOLLOWING", ""])
    return f"{random_size(rng, kind)} {direction}".rstrip()


def _frame(rng: random.Random) -> str:
    kind = "RANGE" if rng.random() < 0.75 else "ROWS"
    if rng.random() < 0.3:
        conj = "AND" if rng.random() < 0.95 else "OR"
        return f"{kind} BETWEEN {_bound(rng, kind)} {conj} {_bound(rng, kind)}"
    return f"{kind} {_bound(rng, kind)}"


def _spec(rng: random.Random) -> str:
    parts = []
    if rng.random() < 0.2:
        parts.append("PARTITION BY " + rng.choice(["k", "k, id", "k + 1"]))
    if rng.random() < 0.15:
        parts.append("ORDER BY " + rng.choice(["ts", "ts ASC", "ts DESC", "ts, id", "x.ts", "FLOOR(ts)"]))
    if rng.random() < 0.97:
        parts.append(_frame(rng))
    return " ".join(parts)


def random_statement(seed: int) -> str:
    """One SELECT STREAM statement with two join inputs and random windows."""
    rng = random.Random(seed)
    named: list[tuple[str, str]] = []

    def window() -> str:
        roll = rng.random()
        if roll < 0.15:
            return ""
        if roll < 0.35:
            name = rng.choice(["w", "w2", '"lastFew"', "W"])
            if rng.random() < 0.9:
                named.append((name, _spec(rng)))
            return f"OVER {name}"
        return f"OVER ({_spec(rng)})"

    def relation(source: str, alias: str) -> str:
        over = window()
        if not over:
            return f"{source} AS {alias}"
        return rng.choice([f"{source} {over} AS {alias}", f"{source} AS {alias} {over}", f"{source} {alias} {over}"])

    left = relation(rng.choice(["a", "STREAM a", "STREAM(a)", "db.a"]), "x")
    right = relation(rng.choice(["b", "STREAM b", '"b"']), "y")
    join = rng.choice(["JOIN", "LEFT JOIN", "RIGHT OUTER JOIN", "FULL JOIN", "INNER JOIN"])
    on = "ON x.k = y.k"
    if rng.random() < 0.1 and named:
        on = f"ON {named[0][0]}.k = y.k"
    within = (
        f" WITHIN {random_duration(rng) if rng.random() < 0.7 else random_interval(rng)}" if rng.random() < 0.1 else ""
    )
    sql = f"SELECT STREAM x.id, y.id FROM {left} {join} {right} {on}{within}"
    if named:
        seen: dict[str, str] = {}
        for name, spec in named:
            seen.setdefault(name, spec)
        if rng.random() < 0.05:
            seen["w_extra"] = "PARTITION BY k"
        sql += " WINDOW " + ", ".join(f"{n} AS ({s})" for n, s in seen.items())
    return sql
