"""Prints the nodes of :mod:`overjoin.dialect.expressions` back as SQL, so that
``parse -> generate -> parse`` gives the same tree."""

from __future__ import annotations

import typing as t

from sqlglot import exp
from sqlglot.generators.spark import SparkGenerator

from overjoin.dialect.expressions import (
    Duration,
    FrameBound,
    GroupWindow,
    JoinWindow,
    JoinWindowSpec,
    NamedJoinWindow,
    OjJoin,
    OjOrder,
    OjSelect,
    OjSubquery,
    OjTable,
    StaggerWindow,
    TimeFloorSteps,
    TimeStep,
    Watermark,
    WindowInterval,
)


class _StreamMarker(exp.Expression):
    """Printed in the DISTINCT slot of a SELECT STREAM while it is generated."""

    arg_types = {"this": False}


def _interval_sql(gen: SparkGenerator, node: WindowInterval) -> str:
    sign = "-" if node.args.get("negative") else ""
    out = f"INTERVAL {sign}{gen.sql(node, 'this')}"
    for unit_key, precision_key in (("unit", "precision"), ("to", "to_precision")):
        unit = node.args.get(unit_key)
        if unit:
            precision = node.args.get(precision_key)
            out += f"{' TO' if unit_key == 'to' else ''} {unit}{f'({precision})' if precision else ''}"
    for pair in node.args.get("more") or []:
        out += f" {gen.sql(pair, 'this')} {pair.args['unit']}"
    return out


def _bound_sql(gen: SparkGenerator, node: FrameBound) -> str:
    side = node.args["side"]
    if node.args.get("unbounded"):
        return f"UNBOUNDED {side}"
    if side == "CURRENT ROW":
        return side
    return f"{gen.sql(node, 'this')} {side}"


def _spec_sql(gen: SparkGenerator, node: JoinWindowSpec) -> str:
    parts = []
    if node.args.get("partition_by"):
        parts.append(f"PARTITION BY {gen.expressions(node, key='partition_by', flat=True)}")
    if node.args.get("order"):
        parts.append(f"ORDER BY {gen.expressions(node, key='order', flat=True)}")
    kind = node.args.get("kind")
    if kind:
        if node.args.get("between"):
            parts.append(f"{kind} BETWEEN {gen.sql(node, 'start')} AND {gen.sql(node, 'end')}")
        else:
            parts.append(f"{kind} {gen.sql(node, 'start')}")
    return " ".join(parts)


def _window_sql(gen: SparkGenerator, node: JoinWindow) -> str:
    if node.args.get("spec") is not None:
        return f"OVER ({gen.sql(node, 'spec')})"
    return f"OVER {gen.sql(node, 'this')}"


def _relation_sql(gen: SparkGenerator, node: exp.Expr, base: t.Callable[[t.Any], str]) -> str:
    alias = node.args.get("alias")
    window = gen.sql(node, "join_window")
    watermark = gen.sql(node, "watermark")
    after_alias = bool(node.args.get("window_after_alias"))
    # Print the relation without its alias, then the clauses in the order they were written.
    node.set("alias", None)
    try:
        body = base(node)
    finally:
        node.set("alias", alias)
    alias_sql = f" AS {gen.sql(alias)}" if alias is not None else ""
    before = [watermark, window] if not node.args.get("window_first") else [window, watermark]
    out = body + "".join(f" {clause}" for clause in before if clause and (clause != window or not after_alias))
    out += alias_sql
    if window and after_alias:
        out += f" {window}"
    return out


def _join_sql(gen: SparkGenerator, node: OjJoin) -> str:
    within = node.args.get("within")
    if within is None:
        return gen.join_sql(node)
    if not node.args.get("within_first"):
        return f"{gen.join_sql(node)} WITHIN {gen.sql(within)}"
    # WITHIN before ON/USING: print the join, then move WITHIN in front of its condition.
    full = gen.join_sql(node)
    on, using = node.args.get("on"), node.args.get("using")
    cond = f" USING ({', '.join(gen.sql(c) for c in using)})" if using else f" ON {gen.sql(on)}"
    if not full.endswith(cond):
        return f"{full} WITHIN {gen.sql(within)}"
    return f"{full[: -len(cond)]} WITHIN {gen.sql(within)}{cond}"


def _version_sql(gen: SparkGenerator, node: exp.Version) -> str:
    if node.name == "SYSTEM_TIME":
        return f"FOR SYSTEM_TIME AS OF {gen.sql(node, 'expression')}"
    return SparkGenerator.version_sql(gen, node)


def _name_sql(gen: SparkGenerator, node: NamedJoinWindow) -> str:
    return f"{gen.sql(node, 'this')} AS ({gen.sql(node, 'spec')})"


class _AfterWhere(exp.Expression):
    """Prints a block's WHERE (``this``, may be absent) and then its stagger window."""

    arg_types = {"this": False, "expression": True}


class OverjoinGenerator(SparkGenerator):
    """Spark's generator plus the nodes of this module."""

    TRANSFORMS = {
        **SparkGenerator.TRANSFORMS,
        Duration: lambda self, e: e.name,
        TimeStep: lambda self, e: f"STEP({self.sql(e, 'this')} BY {self.sql(e, 'by')})",
        TimeFloorSteps: lambda self, e: (
            f"FLOOR(({self.sql(e, 'this')} - {self.sql(e, 'origin')}) {e.args['unit']}"
            + (f" / {self.sql(e, 'steps')}" if e.args.get("steps") else "")
            + f" TO {self.sql(e, 'to')})"
        ),
        GroupWindow: lambda self, e: (
            f"{e.function}({', '.join([self.sql(e, 'this'), *(self.sql(x) for x in e.expressions)])}"
            + (f", TIME {self.sql(e, 'align')})" if e.args.get("align") else ")")
        ),
        WindowInterval: _interval_sql,
        FrameBound: _bound_sql,
        JoinWindowSpec: _spec_sql,
        JoinWindow: _window_sql,
        NamedJoinWindow: _name_sql,
        StaggerWindow: lambda self, e: (
            f"WINDOWED BY STAGGER (PARTITION BY {self.expressions(e, flat=True)} RANGE {self.sql(e, 'this')})"
        ),
        _AfterWhere: lambda self, e: f"{self.sql(e, 'this')}{self.seg(self.sql(e, 'expression'))}",
        Watermark: lambda self, e: f"WATERMARK {self.sql(e, 'this')} DELAY OF {self.sql(e, 'expression')}",
        _StreamMarker: lambda self, e: "STREAM" + (f" {self.sql(e, 'this')}" if e.this else ""),
        # Spark's own transforms for SELECT and tables run first; they end in <key>_sql below.
        OjSelect: SparkGenerator.TRANSFORMS.get(exp.Select, lambda self, e: self.ojselect_sql(e)),
        OjTable: SparkGenerator.TRANSFORMS.get(exp.Table, lambda self, e: self.ojtable_sql(e)),
        OjSubquery: lambda self, e: self.ojsubquery_sql(e),
        OjJoin: _join_sql,
        OjOrder: lambda self, e: self.ojorder_sql(e),
        exp.Stream: lambda self, e: f"STREAM {self.sql(e, 'this')}",
        exp.Version: _version_sql,
    }

    def query_modifiers(self, expression: exp.Expr, *sqls: str) -> str:
        """A block's modifiers, with ``WINDOWED BY STAGGER (...)`` after its WHERE."""
        stagger = expression.args.get("stagger")
        if stagger is None:
            return super().query_modifiers(expression, *sqls)
        where = expression.args.get("where")
        expression.set("where", _AfterWhere(this=where, expression=stagger))
        try:
            return super().query_modifiers(expression, *sqls)
        finally:
            expression.set("where", where)

    def ojselect_sql(self, expression: OjSelect) -> str:
        """``SELECT [STREAM] ...``: STREAM is printed in DISTINCT's place, before it."""
        if not expression.args.get("stream"):
            return self.select_sql(expression)
        distinct = expression.args.get("distinct")
        expression.set("distinct", _StreamMarker(this=distinct))
        try:
            return self.select_sql(expression)
        finally:
            expression.set("distinct", distinct)

    def ojorder_sql(self, expression: OjOrder) -> str:
        """``ORDER BY key WITHIN within, ...``: s-Server's t-sort."""
        keys = [self.sql(e) for e in expression.expressions]
        if keys:
            keys[0] += f" WITHIN {self.sql(expression, 'within')}"
        return f"{self.seg('ORDER BY')} {', '.join(keys)}"

    def ojtable_sql(self, expression: OjTable) -> str:
        """A table with its watermark and join window."""
        return _relation_sql(self, expression, self.table_sql)

    def ojsubquery_sql(self, expression: OjSubquery) -> str:
        """A subquery with its watermark and join window."""
        return _relation_sql(self, expression, self.subquery_sql)
