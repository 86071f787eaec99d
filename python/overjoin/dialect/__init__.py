"""The ``overjoin`` sqlglot dialect: Spark SQL plus the streaming-join syntax of docs/syntax.md.

The dialect subclasses sqlglot's Spark dialect. Its parser hooks add:

* ``SELECT STREAM ...`` (an :class:`OjSelect` with ``stream=True``);
* a join window after a ``FROM`` relation, before or after its alias: ``FROM s OVER (...) AS a``,
  ``FROM s AS a OVER w`` (:class:`JoinWindow` on an :class:`OjTable` / :class:`OjSubquery`);
* Spark's ``WATERMARK col DELAY OF <interval>`` clause after a relation (:class:`Watermark`);
* ``STREAM t`` and ``STREAM(t)`` in ``FROM`` (sqlglot's ``exp.Stream``);
* ``JOIN ... WITHIN <duration>`` before or after the join condition (:class:`OjJoin`);
* ``WINDOW name AS (...)`` definitions written in the join-window grammar (:class:`NamedJoinWindow`);
* ``WINDOWED BY STAGGER (PARTITION BY ... RANGE ...)`` after FROM/WHERE (:class:`StaggerWindow`, the
  block's ``stagger``);
* s-Server's t-sort, ``ORDER BY key WITHIN <duration> [, keys]`` (:class:`OjOrder`);
* ``FOR SYSTEM_TIME AS OF PROCTIME()`` kept as written (sqlglot would turn it into ``TIMESTAMP AS OF``);
* Calcite's ``CEIL(ts TO unit)`` (also ``CEILING``) and its group windows, ``TUMBLE``/``HOP``/
  ``SESSION`` in ``GROUP BY`` and ``TUMBLE_END(...)`` and the like (:class:`GroupWindow`).

``ASOF [LEFT] JOIN`` and ``TUMBLE(...)``/``HOP(...)`` in ``FROM`` already parse in sqlglot's Spark
dialect. The join-window grammar is parsed leniently: ``FOLLOWING``, ``UNBOUNDED``, ``MONTH``,
negative sizes and the like are kept in the tree (with the positions of their tokens in
``node.meta["oj"]``) so that the validator can report them with their own error codes; only text
that fits no reading at all is a syntax error here.

Modules: :mod:`~overjoin.dialect.expressions` (the nodes and their positions),
:mod:`~overjoin.dialect.windows` (the join-window grammar), :mod:`~overjoin.dialect.parser`
(statements, inputs, joins) and :mod:`~overjoin.dialect.generator` (printing every node back, so
that ``parse -> generate -> parse`` gives the same tree).
"""

from __future__ import annotations

from sqlglot.dialects.spark import Spark

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
    pos,
)
from overjoin.dialect.generator import OverjoinGenerator
from overjoin.dialect.parser import OverjoinParser
from overjoin.dialect.windows import UNIT_WORDS

__all__ = [
    "UNIT_WORDS",
    "Duration",
    "FrameBound",
    "GroupWindow",
    "JoinWindow",
    "JoinWindowSpec",
    "NamedJoinWindow",
    "OjJoin",
    "OjOrder",
    "OjSelect",
    "OjSubquery",
    "OjTable",
    "Overjoin",
    "OverjoinDQ",
    "StaggerWindow",
    "TimeFloorSteps",
    "TimeStep",
    "Watermark",
    "WindowInterval",
    "dialect_for",
    "pos",
]


class Overjoin(Spark):
    """Spark SQL plus overjoin's streaming-join syntax (double quotes delimit strings, as in Spark)."""

    class Tokenizer(Spark.Tokenizer):
        pass

    Parser = OverjoinParser
    Generator = OverjoinGenerator


class OverjoinDQ(Overjoin):
    """:class:`Overjoin` with ``spark.sql.ansi.doubleQuotedIdentifiers``: ``"x"`` is an identifier."""

    class Tokenizer(Overjoin.Tokenizer):
        QUOTES = ["'"]
        IDENTIFIERS = ["`", '"']
        RAW_STRINGS = [("r'", "'"), ("R'", "'")]


_DIALECTS: dict[bool, Overjoin] = {}


def dialect_for(double_quoted_identifiers: bool = False) -> Overjoin:
    """Return the (cached) dialect instance for the given quoting mode."""
    dialect = _DIALECTS.get(double_quoted_identifiers)
    if dialect is None:
        dialect = (OverjoinDQ if double_quoted_identifiers else Overjoin)()
        _DIALECTS[double_quoted_identifiers] = dialect
    return dialect
