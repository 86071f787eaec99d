"""Records made from a KDA input schema, and a model of how KDA reads them (docs/server.md, "Input
schemas"), written apart from the server's decoder (io.overjoin.streams.records) to check it.

``make_records`` builds records for a schema: JSON documents whose fields sit where the columns'
mappings say (nested objects, arrays for ``[0:]``), or CSV rows with the schema's delimiters; with
``bad`` > 0 some of them hold values KDA refuses. ``decode`` is the model: the rows a record gives,
or the error each bad row is. JSON paths are navigated with jsonpath-ng (another JSONPath engine
than the server's), and values converted by KDA's table (its developer guide, "Mapping JSON Data
Types to SQL Data Types").
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Any

from jsonpath_ng import parse as jsonpath

from overjoin.importer.model import Column, Schema

__all__ = ["Decoded", "decode", "make_records"]

_MISSING = object()


@dataclass(frozen=True)
class Decoded:
    """One row of a record: its values by column, or the error name."""

    values: dict[str, Any] | None
    error: str | None = None


def _type(sql_type: str) -> tuple[str, tuple[int, ...]]:
    m = re.fullmatch(r"\s*([A-Za-z ]+?)\s*(?:\(([\d,\s]+)\))?\s*", sql_type)
    assert m, sql_type
    name = " ".join(m.group(1).upper().split())
    args = tuple(int(a) for a in m.group(2).split(",")) if m.group(2) else ()
    return {"INT": "INTEGER", "CHARACTER VARYING": "VARCHAR", "DEC": "DECIMAL", "NUMERIC": "DECIMAL"}.get(
        name, name
    ), args


# ---- making records -----------------------------------------------------------------------------


def _value(sql_type: str, rng: random.Random, i: int) -> Any:
    """A JSON value KDA reads as `sql_type` (what the JSON of a producer holds)."""
    name, args = _type(sql_type)
    if name in ("VARCHAR", "CHAR"):
        n = args[0] if args else 12
        return "".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, max(1, min(n + 2, 14)))))
    if name in ("INTEGER", "BIGINT"):
        return rng.randint(-1000, 100000)
    if name == "SMALLINT":
        return rng.randint(-300, 300)
    if name == "TINYINT":
        return rng.randint(-100, 100)
    if name in ("DOUBLE", "REAL", "FLOAT"):
        return round(rng.uniform(-500, 500), 3)
    if name == "DECIMAL":
        p, s = args[:2] if len(args) >= 2 else ((args[0], 0) if args else (10, 0))
        whole = rng.randint(0, 10 ** min(6, p - s) - 1)
        return float(Decimal(whole) + Decimal(rng.randint(0, 10**s - 1)) / Decimal(10**s)) if s else whole
    if name == "BOOLEAN":
        return rng.random() < 0.5
    if name == "TIMESTAMP":
        t = datetime(2024, 1, 31, 12, 0, tzinfo=timezone.utc) + timedelta(milliseconds=rng.randint(0, 10**8))
        return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
    if name == "DATE":
        return (datetime(2024, 1, 1) + timedelta(days=rng.randint(0, 300))).strftime("%Y-%m-%d")
    raise AssertionError(f"no values made for {sql_type}")


def _bad_value(sql_type: str, rng: random.Random) -> Any:
    name, _ = _type(sql_type)
    if name in ("VARCHAR", "CHAR", "BOOLEAN"):
        return None  # every value reads as these
    if name in ("TIMESTAMP", "DATE"):
        return rng.choice(["yesterday", 1706700000000, [1]])
    return rng.choice(["many", {"n": 1}, 12.5 if name != "DOUBLE" and name != "REAL" else "x"])


def _steps(mapping: str) -> list[str]:
    return [s for s in re.split(r"\.|(?=\[0:\])", mapping.removeprefix("$")) if s]


def _put(doc: dict[str, Any], steps: list[str], value: Any, element: int) -> None:
    """Sets `value` at `steps` in `doc`; `[0:]` steps make arrays, `element` picks the element."""
    node: Any = doc
    for k, step in enumerate(steps):
        last = k == len(steps) - 1
        nxt = steps[k + 1] if not last else None
        if step == "[0:]":
            continue
        if last:
            node[step] = value
            return
        if nxt == "[0:]":
            arr = node.setdefault(step, [])
            if k + 2 > len(steps) - 1:
                node[step] = value
                return
            while len(arr) <= element:
                arr.append({})
            node = arr[element]
        else:
            node = node.setdefault(step, {})


def make_records(schema: Schema, count: int, seed: int, bad: float = 0.0) -> list[bytes]:
    """`count` records for `schema` (a share `bad` of them with a value KDA refuses)."""
    rng = random.Random(seed)
    out: list[bytes] = []
    f = schema.format
    for i in range(count):
        spoil = rng.random() < bad
        if f.kind == "CSV":
            rows = []
            for _ in range(rng.randint(1, 3)):
                fields = [str(_csv_text(_value(c.sql_type, rng, i))) for c in schema.columns]
                if spoil:
                    j = rng.randrange(len(fields))
                    b = _bad_value(schema.columns[j].sql_type, rng)
                    if b is not None and not isinstance(b, (dict, list)):
                        fields[j] = str(b)
                rows.append((f.column_delimiter or ",").join(fields))
            out.append(((f.row_delimiter or "\n").join(rows) + (f.row_delimiter or "\n")).encode())
            continue
        doc: dict[str, Any] = {}
        elements = rng.randint(1, 3)
        row_prefix = _steps(f.row_path or "$")
        for c in schema.columns:
            steps = _steps(c.mapping or "$." + c.name)
            if row_prefix and steps[: len(row_prefix)] != row_prefix:
                steps = row_prefix + steps
            if steps and steps[-1] == "[0:]":
                _put(doc, steps[:-1], [_value("VARCHAR(8)", rng, i) for _ in range(elements)], 0)
                continue
            for e in range(elements if "[0:]" in steps else 1):
                if rng.random() < 0.1:
                    continue  # missing: NULL
                _put(doc, steps, _value(c.sql_type, rng, i), e)
        if spoil:
            c = rng.choice(list(schema.columns))
            b = _bad_value(c.sql_type, rng)
            steps = _steps(c.mapping or "$." + c.name)
            if b is not None and "[0:]" not in steps:
                _put(doc, steps, b, 0)
        out.append(json.dumps(doc).encode())
    return out


def _csv_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# ---- the model ----------------------------------------------------------------------------------


def _read(value: Any, column: Column) -> Any:
    """KDA's conversion of a JSON value into the column's type; raises ValueError for a coercion error."""
    name, args = _type(column.sql_type)
    if value is _MISSING or value is None:
        return None
    if name in ("VARCHAR", "CHAR"):
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (dict, list)):
            text = json.dumps(value, separators=(",", ":"))
        elif isinstance(value, float) and value == int(value) and "e" not in repr(value):
            text = repr(value)
        else:
            text = str(value)
        return text[: args[0]] if args else text
    if name == "BOOLEAN":
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            return value != 0
        if isinstance(value, str):
            return value.strip().lower() == "true"
        raise ValueError("container")
    if name in ("INTEGER", "BIGINT", "SMALLINT", "TINYINT"):
        if isinstance(value, bool):
            number = Decimal(int(value))
        elif isinstance(value, (int, float)):
            number = Decimal(str(value))
        elif isinstance(value, str):
            try:
                number = Decimal(value.strip())
            except InvalidOperation:
                raise ValueError("not a number") from None
        else:
            raise ValueError("container")
        if number != number.to_integral_value():
            raise ValueError("not whole")
        bits = {"TINYINT": 8, "SMALLINT": 16, "INTEGER": 32, "BIGINT": 64}[name]
        n = int(number)
        if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
            raise ValueError("out of range")
        return n
    if name in ("DOUBLE", "REAL", "FLOAT"):
        if isinstance(value, bool):
            return 1.0 if value else 0.0
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise ValueError("not a number") from None
        raise ValueError("container")
    if name == "DECIMAL":
        p, s = args if len(args) == 2 else (args[0], 0) if args else (10, 0)
        if isinstance(value, bool):
            number = Decimal(int(value))
        elif isinstance(value, (int, float)):
            number = Decimal(str(value))
        elif isinstance(value, str):
            try:
                number = Decimal(value.strip())
            except InvalidOperation:
                raise ValueError("not a number") from None
        else:
            raise ValueError("container")
        scaled = number.quantize(Decimal(1).scaleb(-s), rounding=ROUND_DOWN)
        if scaled != number or (len(scaled.as_tuple().digits) > p and scaled != 0):
            raise ValueError("does not fit")
        return scaled
    if name == "TIMESTAMP":
        if not isinstance(value, str):
            raise ValueError("not a string")
        m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?",
                         value.strip())  # fmt: skip
        if not m:
            raise ValueError("not a time")
        y, mo, d, h, mi, sec, frac, zone = m.groups()
        try:
            t = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(sec or 0),
                         int((frac or "0").ljust(6, "0")[:6]) // 1000 * 1000, tzinfo=timezone.utc)  # fmt: skip
        except ValueError:
            raise ValueError("not a time") from None
        if zone and zone != "Z":
            sign = 1 if zone[0] == "+" else -1
            digits = zone[1:].replace(":", "")
            t -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        return t
    if name == "DATE":
        if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            raise ValueError("not a date")
        return datetime.strptime(value.strip(), "%Y-%m-%d").date()
    raise AssertionError(column.sql_type)


def _find(doc: Any, path: str) -> Any:
    """The one value at `path` (``[0:]`` as the last step: the whole array), or _MISSING."""
    if path == "$":
        return doc
    expr = path.removesuffix("[0:]")
    found = jsonpath(expr).find(doc)
    if not found:
        return _MISSING
    value = found[0].value
    if path.endswith("[0:]") and not isinstance(value, list):
        return _MISSING
    return value


def _split_json(text: str) -> tuple[list[Any], bool]:
    decoder = json.JSONDecoder()
    docs: list[Any] = []
    i = 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        try:
            doc, i = decoder.raw_decode(text, i)
        except ValueError:
            return docs, False
        docs.append(doc)
    return docs, True


def decode(payload: bytes, schema: Schema) -> list[Decoded]:
    """KDA's rows of one record (the model)."""
    text = payload.decode("utf-8")
    f = schema.format
    if f.kind == "CSV":
        return _decode_csv(text, schema)
    docs, ok = _split_json(text)
    out: list[Decoded] = []
    row_path = f.row_path or "$"
    for doc in docs:
        rows: list[Any] = [doc]
        if row_path.endswith("[0:]"):
            arr = _find(doc, row_path)
            rows = arr if isinstance(arr, list) and arr else [_MISSING]
        elif row_path != "$":
            rows = [_find(doc, row_path)]
        for row in rows:
            paths = [_relative(c.mapping or "$." + c.name, row_path) for c in schema.columns]
            flat = next((p.split("[0:]")[0] + "[0:]" for p in paths if "[0:]" in p and not p.endswith("[0:]")), None)
            elements: list[Any] = [None]
            if flat is not None:
                arr = _find(row, flat) if row is not _MISSING else _MISSING
                elements = arr if isinstance(arr, list) and arr else [_MISSING]
            for element in elements:
                values: dict[str, Any] = {}
                error = None
                for c, p in zip(schema.columns, paths):
                    if row is _MISSING:
                        v = _MISSING
                    elif flat is not None and p.startswith(flat):
                        rest = "$" + p[len(flat) :]
                        v = _MISSING if element is _MISSING else _find(element, rest)
                    else:
                        v = _find(row, p)
                    try:
                        values[c.name] = _read(v, c)
                    except ValueError:
                        error = "Coercion error"
                        break
                out.append(Decoded(None, error) if error else Decoded(values))
    if not ok:
        out.append(Decoded(None, "Parse error"))
    return out


def _relative(mapping: str, row_path: str) -> str:
    if row_path != "$" and (mapping == row_path or mapping.startswith((row_path + ".", row_path + "["))):
        return "$" + mapping[len(row_path) :]
    return mapping


def _decode_csv(text: str, schema: Schema) -> list[Decoded]:
    f = schema.format
    out: list[Decoded] = []
    for row in text.split(f.row_delimiter or "\n"):
        if not row:
            continue
        fields = row.split(f.column_delimiter or ",")
        values: dict[str, Any] = {}
        error = None
        for i, c in enumerate(schema.columns):
            raw: Any = fields[i] if i < len(fields) else None
            name, _ = _type(c.sql_type)
            if raw == "" and name not in ("VARCHAR", "CHAR"):
                raw = None
            try:
                values[c.name] = _read(raw, c)
            except ValueError:
                error = "Coercion error"
                break
        out.append(Decoded(None, error) if error else Decoded(values))
    return out
