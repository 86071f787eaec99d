"""The checks of Calcite's group windows in a streaming query block (docs/semantics.md §11,
"Calcite's group windows"), as the JVM parser makes them (``GroupWindowParser``): each call's
intervals and alignment, then where each call is and which window an auxiliary function names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from overjoin import dialect as D
from overjoin.validator.common import _group_windows
from overjoin.validator.window_checks import WindowChecker

if TYPE_CHECKING:
    from overjoin.validator.checks import Context

_TIME_OF_DAY = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?")


def time_of_day(text: str) -> int | None:
    """``h:mm[:ss[.f]]`` as microseconds since midnight (``GroupWindowParser.timeOfDay``)."""
    m = _TIME_OF_DAY.fullmatch(text.strip())
    if m is None:
        return None
    h, mi, s, f = m.groups()
    if int(h) >= 24 or int(mi) >= 60 or (s is not None and int(s) >= 60):
        return None
    fraction = int(((f or "") + "000000")[:6])
    return ((int(h) * 60 + int(mi)) * 60 + int(s or 0)) * 1_000_000 + fraction


@dataclass
class _Call:
    """A call whose arguments are good: its text, function and window."""

    node: D.GroupWindow
    text: str
    kind: str
    function: str
    size: int
    slide: int
    offset: int
    values: list[int]

    def same_window(self, other: _Call) -> bool:
        return (self.kind, self.size, self.slide, self.offset) == (other.kind, other.size, other.slide, other.offset)

    @property
    def arguments(self) -> str:
        """The call's text after its name: ``(rowtime, INTERVAL '1' HOUR)``."""
        return self.text[len(self.function) :]


def check_group_windows(ctx: Context) -> None:
    """Every group window call of the block: its arguments, then its place."""
    calls = [c for c in (_arguments(ctx, node) for node in _group_windows(ctx.block.select)) if c is not None]
    _places(ctx, calls)


def _span_text(ctx: Context, span: tuple[int, int] | None) -> str:
    return ctx.sql[span[0] : span[1] + 1] if span else ""


def _arguments(ctx: Context, node: D.GroupWindow) -> _Call | None:
    """The intervals (the join windows' checks, the window named by the call) and the alignment."""
    text = _span_text(ctx, D.pos(node, "call"))
    kind, name = str(node.args["kind"]), node.function
    checker = WindowChecker(ctx, None, None, display=text, window=text)
    what = ["slide", "size"] if kind == "HOP" else ["gap"] if kind == "SESSION" else ["size"]
    sizes: list[int] = []
    for i, size in enumerate(node.expressions):
        micros = checker.range_size(size)
        if micros is None or not checker.ok:
            return None
        if micros <= 0:
            span = D.pos(node, f"arg{i + 1}")
            ctx.reporter.add(
                "OVERJOIN_SYNTAX_ERROR",
                span,
                token=_span_text(ctx, span),
                detail=f"the {what[i]} of {name} must be longer than zero",
            )
            return None
        sizes.append(micros)
    slide, size = (sizes[0], sizes[1]) if kind == "HOP" else (0, sizes[0]) if kind == "SESSION" else (sizes[0],) * 2
    if slide > size:
        first, second = D.pos(node, "arg1"), D.pos(node, "arg2")
        ctx.reporter.add(
            "OVERJOIN_GROUP_WINDOW",
            first,
            call=text,
            problem=f"its slide {_span_text(ctx, first)} is longer than its size {_span_text(ctx, second)}, "
            "so the rows between two windows would be in none",
            fix="HOP takes the slide first, then the size, as in HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '3' HOUR), "
            "which puts each row in three windows of three hours",
        )
        return None
    values = list(sizes)
    offset = 0
    align = node.args.get("align")
    if align is not None:
        literal = D.pos(align, "value")
        when = time_of_day(align.name)
        if when is None:
            ctx.reporter.add(
                "OVERJOIN_SYNTAX_ERROR",
                literal,
                token=_span_text(ctx, literal),
                detail="a time of day such as '0:12' or '00:12:30' (the time the windows are aligned to)",
            )
            return None
        offset = when % slide
        values.append(offset)
    return _Call(node, text, kind, name, size, slide, offset, values)


def _in_select_list(node: exp.Expr, select: exp.Select) -> bool:
    """Whether ``node`` is in one of ``select``'s select items (inside an aggregate function too)."""
    child: exp.Expr = node
    while child.parent is not None and child.parent is not select:
        child = child.parent
    return child.parent is select and any(child is item for item in select.expressions)


def _places(ctx: Context, calls: list[_Call]) -> None:
    """A group function is an item of its own of GROUP BY; an auxiliary one is in the select list and
    names a window the block groups by (its time is compared at analysis)."""
    select = ctx.block.select
    group = select.args.get("group")
    items = group.expressions if group is not None else []
    groups = [c for c in calls if not c.node.args.get("role")]
    for c in groups:
        if not any(c.node is item for item in items):
            ctx.reporter.add(
                "OVERJOIN_GROUP_WINDOW",
                D.pos(c.node, "name"),
                call=c.text,
                problem=f"{c.kind} groups the rows of its query block, so it can only be an item of GROUP BY",
                fix=f"Group by it (GROUP BY {c.text}) and select its window with {c.kind}_START(...) or "
                f"{c.kind}_END(...) and the same arguments",
            )
    for c in groups:
        # Not yet: a streaming ORDER BY reads a window's start and end columns, which a session has not.
        if c.kind == "SESSION" and select.args.get("order") is not None:
            ctx.reporter.add(
                "OVERJOIN_GROUP_WINDOW",
                D.pos(c.node, "name"),
                call=c.text,
                problem="its query block sorts its groups (ORDER BY), which overjoin does not do after a session "
                "window yet",
                fix="Sort in an outer query: SELECT * FROM (this query without ORDER BY) ORDER BY ROWTIME, ...",
            )
    for c in calls:
        role = c.node.args.get("role")
        if not role:
            continue
        if not _in_select_list(c.node, select):
            ctx.reporter.add(
                "OVERJOIN_GROUP_WINDOW",
                D.pos(c.node, "name"),
                call=c.text,
                problem=f"{c.function} is the {role.lower()} of the window of a group, which only the select list "
                "can read",
                fix=f"Select it ({c.text} AS window_{role.lower()}) and filter or sort by that name in an outer query",
            )
            continue
        same = [g for g in groups if g.kind == c.kind]
        if not same:
            ctx.reporter.add(
                "OVERJOIN_GROUP_WINDOW",
                D.pos(c.node, "name"),
                call=c.text,
                problem=f"its query block has no GROUP BY {c.kind}(...)",
                fix=f"Group the block by {c.kind}{c.arguments}, or remove {c.function}",
            )
        elif not any(g.same_window(c) for g in same):
            g = same[0]
            differs = next((i for i in range(len(c.values)) if i >= len(g.values) or c.values[i] != g.values[i]), None)
            span = D.pos(c.node, f"arg{differs + 1}") if differs is not None else D.pos(c.node, "name")
            ctx.reporter.add(
                "OVERJOIN_GROUP_WINDOW",
                span,
                call=c.text,
                problem=f"its window is not that of GROUP BY {g.text}",
                fix=f"Write the arguments of the GROUP BY's {c.kind}: {c.function}{g.arguments}",
            )
