"""The nodes overjoin's dialect adds to sqlglot's trees, and where each part was written.

Positions: the parser records the character offsets of the tokens that make up each part of a
node in ``node.meta["oj"]`` (:func:`mark`), so that the validator can point at them (:func:`pos`).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import Token

__all__ = [
    "Duration",
    "FrameBound",
    "GroupWindow",
    "JoinWindow",
    "JoinWindowSpec",
    "NamedJoinWindow",
    "OjJoin",
    "OjSelect",
    "OjSubquery",
    "OjTable",
    "TimeFloorSteps",
    "TimeStep",
    "Watermark",
    "WindowInterval",
    "mark",
    "pos",
    "retype",
]


def pos(node: exp.Expr | None, part: str) -> tuple[int, int] | None:
    """Return the ``(start, end)`` character offsets (end inclusive) recorded for ``part`` of ``node``."""
    if node is None or not node._meta:
        return None
    return node.meta.get("oj", {}).get(part)


def mark(node: exp.Expr, part: str, token: Token | None, end: Token | None = None) -> None:
    """Record where ``part`` of ``node`` was written: the offsets of ``token`` (through ``end``)."""
    if not token:
        return
    node.meta.setdefault("oj", {})[part] = (token.start, (end or token).end)


class Duration(exp.Expression):
    """A Lenses duration such as ``500ms``, ``5s``, ``10m``, ``1h``, ``1d`` (``this``: the text)."""

    arg_types = {"this": True}


class WindowInterval(exp.Expression):
    """``INTERVAL [-] 'value' unit[(p)] [TO unit[(p)]]`` or Spark's ``INTERVAL '5 seconds'``.

    ``this`` is the value literal, ``unit``/``to`` the unit words as written (upper case),
    ``precision``/``to_precision`` the digits in parentheses, ``negative`` a minus before the value.
    Spark's unquoted ``INTERVAL 1 HOUR 30 MINUTES`` keeps its further pairs in ``more``, each a
    :class:`WindowInterval` of its own.
    """

    arg_types = {
        "this": True,
        "unit": False,
        "precision": False,
        "to": False,
        "to_precision": False,
        "negative": False,
        "more": False,
    }


class TimeStep(exp.Expression):
    """Kinesis Data Analytics' ``STEP(this BY by)`` (docs/semantics.md §11): ``by`` is a
    :class:`WindowInterval` or a number literal."""

    arg_types = {"this": True, "by": True}


class GroupWindow(exp.Expression):
    """One of Calcite's group window functions (docs/semantics.md §11): ``TUMBLE(this, size [, TIME
    align])``, ``HOP(this, slide, size [, TIME align])`` or ``SESSION(this, gap)`` (``role`` empty),
    or an auxiliary ``TUMBLE_START``/``TUMBLE_END``, ``HOP_START``/``HOP_END``,
    ``SESSION_START``/``SESSION_END`` (``role`` ``START`` or ``END``). ``expressions`` are the
    intervals as the join-window grammar reads them, ``align`` the alignment's string literal.
    Positions: ``name`` (the function's word), ``call`` (the whole call), ``arg1``, ``arg2``, ...
    (each argument after the time)."""

    arg_types = {"this": True, "kind": True, "role": False, "expressions": True, "align": False}

    @property
    def function(self) -> str:
        role = self.args.get("role")
        return f"{self.args['kind']}_{role}" if role else str(self.args["kind"])


class TimeFloorSteps(exp.Floor):
    """Kinesis Data Analytics' template tumbling window
    ``FLOOR((this - TIMESTAMP origin) unit / steps TO to)`` (docs/semantics.md §11): the number of
    whole ``steps`` of ``unit`` since ``origin``, as an interval. A :class:`sqlglot.exp.Floor` with a
    ``to``, so that it is a time floor wherever one is looked for; ``unit`` is the unit's word,
    ``steps`` a number literal or absent (one)."""

    arg_types = {"this": True, "origin": True, "unit": True, "steps": False, "to": True, "decimals": False}


class StaggerWindow(exp.Expression):
    """Kinesis Data Analytics' ``WINDOWED BY STAGGER (PARTITION BY expressions RANGE this)`` after a
    block's FROM and WHERE (docs/semantics.md §13), held in the block's ``stagger`` argument:
    ``this`` is the window's length (a :class:`WindowInterval`, :class:`Duration` or number, or
    ``exp.Neg`` of one)."""

    arg_types = {"expressions": True, "this": False}


class FrameBound(exp.Expression):
    """One bound of a join window frame.

    ``side`` is ``PRECEDING``, ``FOLLOWING`` or ``CURRENT ROW``; ``this`` the size (a
    :class:`WindowInterval`, :class:`Duration`, number, or ``exp.Neg`` of one); ``unbounded`` is set
    for ``UNBOUNDED PRECEDING|FOLLOWING``.
    """

    arg_types = {"this": False, "side": True, "unbounded": False}


class JoinWindowSpec(exp.Expression):
    """``[PARTITION BY ...] [ORDER BY ...] [RANGE|ROWS [BETWEEN] bound [AND bound]]``."""

    arg_types = {
        "partition_by": False,
        "order": False,
        "kind": False,
        "between": False,
        "start": False,
        "end": False,
    }


class JoinWindow(exp.Expression):
    """The window after ``OVER`` on a join input: a name (``this``) or a ``spec``."""

    arg_types = {"this": False, "spec": False}


class NamedJoinWindow(exp.Expression):
    """``name AS (spec)`` in a ``WINDOW`` clause, written in the join-window grammar."""

    arg_types = {"this": True, "spec": True}


class Watermark(exp.Expression):
    """Spark's ``WATERMARK col DELAY OF <interval>`` after a relation."""

    arg_types = {"this": True, "expression": True}


class OjSelect(exp.Select):
    """A ``SELECT`` that may say ``STREAM``."""

    arg_types = {**exp.Select.arg_types, "stream": False, "stagger": False}


class OjOrder(exp.Order):
    """A block's ``ORDER BY`` with s-Server's t-sort: ``ORDER BY key WITHIN within [, keys]``
    (docs/semantics.md §11), ``within`` how late a row may arrive and still be sorted into place
    (a :class:`WindowInterval`, :class:`Duration` or number, or ``exp.Neg`` of one)."""

    arg_types = {**exp.Order.arg_types, "within": False}


class OjTable(exp.Table):
    """A table (or table function) in ``FROM`` with a join window and/or a watermark."""

    arg_types = {
        **exp.Table.arg_types,
        "join_window": False,
        "window_after_alias": False,
        "window_first": False,
        "watermark": False,
    }


class OjSubquery(exp.Subquery):
    """A subquery in ``FROM`` with a join window and/or a watermark."""

    arg_types = {
        **exp.Subquery.arg_types,
        "join_window": False,
        "window_after_alias": False,
        "window_first": False,
        "watermark": False,
    }


class OjJoin(exp.Join):
    """A join with Lenses' ``WITHIN <duration>`` (``within_first``: written before ``ON``/``USING``)."""

    arg_types = {**exp.Join.arg_types, "within": False, "within_first": False}


OJ_RELATIONS: dict[type[exp.Expr], type[exp.Expr]] = {exp.Table: OjTable, exp.Subquery: OjSubquery}


def retype(node: exp.Expr, cls: type[exp.Expr]) -> exp.Expr:
    """Return ``node`` as an instance of its subclass ``cls``, keeping args, comments and meta."""
    if type(node) is cls:
        return node
    new = cls(**node.args)
    new.comments = node.comments
    if node._meta:
        new.meta.update(node.meta)
    return new
