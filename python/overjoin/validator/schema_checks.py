"""Table schemas for the column checks: names matched case-insensitively, a qualified
name first in full, then by its last part."""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from overjoin.validator.model import (
    Input,
)

#: What ``validate(sql, schemas=...)`` takes: table name -> {column name: Spark type}.
Schemas = Mapping[str, Mapping[str, str]]


class SchemaIndex:
    """Case-insensitive access to the ``schemas`` argument."""

    def __init__(self, schemas: Schemas) -> None:
        self.tables = {name.lower(): {c.lower(): str(t) for c, t in cols.items()} for name, cols in schemas.items()}
        self.short = {name.split(".")[-1]: cols for name, cols in self.tables.items()}

    def lookup(self, name: str | None) -> dict[str, str] | None:
        if not name:
            return None
        key = name.lower()
        return self.tables.get(key) or self.short.get(key.split(".")[-1])

    def columns_of(self, item: Input) -> dict[str, str] | None:
        if item.kind in ("table", "lookup"):
            return self.lookup(item.table_name)
        if item.kind == "tvf":
            args = item.node.this.expressions
            base = self.lookup(args[0].name) if args and isinstance(args[0], exp.Column) else None
            if base is None:
                return None
            return {**base, "window_start": "timestamp", "window_end": "timestamp"}
        if item.kind == "subquery" and isinstance(item.node, exp.Subquery):
            return self._subquery_columns(item.node)
        return None

    def _subquery_columns(self, node: exp.Subquery) -> dict[str, str] | None:
        inner = node.this
        if not isinstance(inner, exp.Select) or inner.args.get("joins"):
            return None
        source = inner.args.get("from_")
        base = self.lookup(".".join(p.name for p in source.this.parts)) if source and isinstance(
            source.this, exp.Table) else None  # fmt: skip
        columns: dict[str, str] = {}
        for projection in inner.expressions:
            if isinstance(projection, exp.Star):
                if base is None:
                    return None
                columns.update(base)
                continue
            name = projection.alias_or_name.lower()
            if not name:
                return None
            columns[name] = _projection_type(projection, base)
        return columns


def _projection_type(projection: exp.Expr, base: dict[str, str] | None) -> str:
    value = projection.this if isinstance(projection, exp.Alias) else projection
    if isinstance(value, exp.Cast):
        return value.to.sql(dialect="spark").lower()
    if isinstance(value, exp.Column) and base is not None:
        return base.get(value.name.lower(), "unknown")
    return "unknown"
