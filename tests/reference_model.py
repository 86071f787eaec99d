"""A small, deliberately naive model of docs/semantics.md (§1-4, §6, §11-13), for differential tests.

Everything here is pure Python and written to be checked line by line against the contract; it
tries every pair of rows and never optimises. Each rule carries the docs/semantics.md section it
implements.

Vocabulary:

* An :class:`Input` is one join input: an alias, its rows *in arrival order*, the name of its
  rowtime column (§1) and its :class:`Window` (§2).
* :func:`life_interval` gives a row's life interval ``L(x)`` (§3) as an :class:`Interval`.
* :func:`evaluate` joins the inputs left-deep with a list of :class:`Join` (§4) and returns
  :class:`Out` rows: the output ``ROWTIME`` plus ``{alias: row or None}``.
* :func:`as_tuples` / :func:`multiset` turn outputs into comparable tuples.

Decisions the contract leaves to the implementation, taken as the JVM takes them:

* A row whose rowtime is NULL is in no window at any time (docs/semantics.md §1): it never matches,
  it is never emitted (not even null-padded by an outer join) and it does not count as a "later
  row" for a ROWS window. The JVM filters such rows out before the join.
* A row whose life interval is empty (possible only with ROWS windows: ``ROWS CURRENT ROW`` and a
  later row with the same rowtime gives ``[t, t)``) never matches. An outer join still keeps it
  null-padded, like any unmatched row, with ``ROWTIME = end L(x)``.

Typical use::

    a = Input("a", rows_a, "rowtime", Window.range(timedelta(seconds=10)))
    b = Input("b", rows_b, "rowtime")                         # RANGE CURRENT ROW
    out = evaluate([a, b], [Join("LEFT", equi("a", "k", "b", "k"))])
    as_tuples(out, ["a", "b"])   # [(ROWTIME, a.id, b.id), ...] sorted
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

__all__ = [
    "ASOF_OPS",
    "CURRENT_ROW",
    "Condition",
    "Env",
    "Input",
    "Interval",
    "Join",
    "Out",
    "Row",
    "SlidingCall",
    "Window",
    "and_",
    "as_tuples",
    "asof",
    "asof_streamed",
    "col",
    "equi",
    "evaluate",
    "hop_windows",
    "hopping_groups",
    "life_interval",
    "life_intervals",
    "multiset",
    "session_groups",
    "sliding_window",
    "sort_key",
    "sql_eq",
    "step_floor",
    "tumbling_groups",
    "unit_ceil",
    "unit_floor",
]

Row = dict[str, Any]
"""One input row: column name -> value; ``None`` is SQL NULL."""

Env = Mapping[str, Row | None]
"""What a join condition sees: every alias joined so far -> its row, or None when null-padded."""

Condition = Callable[[Env], bool | None]
"""A join condition in SQL's three-valued logic: True, False or None (NULL, which is not true)."""

JOIN_KINDS = ("INNER", "LEFT", "RIGHT", "FULL", "CROSS")


# ------------------------------------------------------------------------------------------------
# §2: windows


@dataclass(frozen=True)
class Window:
    """The window of one join input (docs/semantics.md §2).

    * ``kind="RANGE"``: ``RANGE BETWEEN a PRECEDING AND b PRECEDING`` with ``a >= b >= 0``
      (timedeltas). ``RANGE INTERVAL 'n' PRECEDING`` is ``a=n, b=0``; ``RANGE CURRENT ROW`` is
      ``a=b=0``. ``partition_by`` makes no difference to a RANGE window.
    * ``kind="ROWS"``: ``ROWS n PRECEDING`` (the ``n + 1`` latest rows), ``a=n`` an int; ``b`` is
      unused. ``ROWS CURRENT ROW`` is ``n=0``. Rows are counted per ``partition_by`` columns.
    """

    kind: str
    a: timedelta | int
    b: timedelta = timedelta(0)
    partition_by: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "RANGE":
            if not (isinstance(self.a, timedelta) and isinstance(self.b, timedelta)):
                raise TypeError("a RANGE window's a and b are timedeltas")
            if not self.a >= self.b >= timedelta(0):
                raise ValueError(f"a RANGE window needs a >= b >= 0, got a={self.a}, b={self.b}")
        elif self.kind == "ROWS":
            if isinstance(self.a, bool) or not isinstance(self.a, int) or self.a < 0:
                raise ValueError(f"a ROWS window needs an int n >= 0, got {self.a!r}")
        else:
            raise ValueError(f"window kind is RANGE or ROWS, not {self.kind!r}")

    @staticmethod
    def range(a: timedelta, b: timedelta = timedelta(0)) -> Window:
        """``RANGE BETWEEN a PRECEDING AND b PRECEDING`` (``b=0``: ``RANGE a PRECEDING``)."""
        return Window("RANGE", a, b)

    @staticmethod
    def rows(n: int, partition_by: Sequence[str] = ()) -> Window:
        """``[PARTITION BY ...] ROWS n PRECEDING``."""
        return Window("ROWS", n, partition_by=tuple(partition_by))


CURRENT_ROW = Window("RANGE", timedelta(0))
"""``RANGE CURRENT ROW``: what an input without ``OVER`` gets (§2)."""


@dataclass
class Input:
    """One join input (§1). ``rows`` are in arrival order; ``rowtime`` names the column."""

    name: str
    rows: list[Row]
    rowtime: str
    window: Window = CURRENT_ROW


@dataclass
class Join:
    """One join step of a left-deep join: ``<everything before> <kind> JOIN <next input> ON on``.

    ``on`` gets ``{alias: row or None}`` for every alias joined so far, the new input included, and
    answers in three-valued logic: only ``True`` matches. ``on=None`` is ``TRUE`` (CROSS, comma).
    """

    kind: str
    on: Condition | None = None

    def __post_init__(self) -> None:
        if self.kind not in JOIN_KINDS:
            raise ValueError(f"join kind is one of {JOIN_KINDS}, not {self.kind!r}")
        if self.kind == "CROSS" and self.on is not None:
            raise ValueError("a CROSS join has no condition")


# ------------------------------------------------------------------------------------------------
# §3: life intervals


@dataclass(frozen=True)
class Interval:
    """``[start, end]`` when ``end_closed``, else ``[start, end)``; ``end=None`` means +infinity.

    Starts are always included: a row enters its window at the start of its life interval.
    """

    start: datetime
    end: datetime | None
    end_closed: bool = True

    def is_empty(self) -> bool:
        if self.end is None:
            return False
        return self.start > self.end or (self.start == self.end and not self.end_closed)

    def intersect(self, other: Interval) -> Interval:
        """The common part (maybe empty): the later start, and the earlier end with its closedness."""
        start = max(self.start, other.start)
        if self.end is None:
            return Interval(start, other.end, other.end_closed)
        if other.end is None:
            return Interval(start, self.end, self.end_closed)
        if self.end < other.end:
            return Interval(start, self.end, self.end_closed)
        if other.end < self.end:
            return Interval(start, other.end, other.end_closed)
        return Interval(start, self.end, self.end_closed and other.end_closed)


def _partition(row: Row, window: Window) -> tuple[Any, ...]:
    # SQL PARTITION BY puts all NULLs of a column into one partition, as tuple equality does here.
    return tuple(row[c] for c in window.partition_by)


def life_interval(inp: Input, index: int) -> Interval | None:
    """``L(x)`` of ``inp.rows[index]`` (§3); None when its rowtime is NULL (in no window).

    * RANGE a, b: ``[x.t + b, x.t + a]``, both ends included.
    * ROWS n: ``[x.t, s.t)`` where ``s`` is the (n+1)-th row after ``x`` in the input's order
      (rowtime, then arrival), counted within ``x``'s partition; ``[x.t, +inf)`` if there is none.
    """
    x = inp.rows[index]
    t = x[inp.rowtime]
    if t is None:
        return None
    w = inp.window
    if w.kind == "RANGE":
        return Interval(t + w.b, t + w.a, end_closed=True)
    # ROWS: the input's order is (rowtime, arrival); rows without a rowtime are not in it.
    same_partition = [
        (r[inp.rowtime], i)
        for i, r in enumerate(inp.rows)
        if r[inp.rowtime] is not None and _partition(r, w) == _partition(x, w)
    ]
    order = sorted(same_partition)
    position = order.index((t, index))
    n = w.a
    assert isinstance(n, int)
    successor = position + n + 1
    if successor < len(order):
        s_t = order[successor][0]
        return Interval(t, s_t, end_closed=False)
    return Interval(t, None, end_closed=False)


def life_intervals(inp: Input) -> list[Interval | None]:
    """:func:`life_interval` of every row of ``inp``, in arrival order."""
    return [life_interval(inp, i) for i in range(len(inp.rows))]


# ------------------------------------------------------------------------------------------------
# §4: join output


@dataclass
class Out:
    """One output row: its ``ROWTIME`` and, per alias, the input row or None (null-padded)."""

    rowtime: datetime
    rows: dict[str, Row | None]


@dataclass
class _Partial:
    """A row of a (partial) left-deep join: its rows, its life interval and its ``ROWTIME``
    (§4, multi-way joins)."""

    rows: dict[str, Row | None]
    life: Interval
    rowtime: datetime


def evaluate(inputs: Sequence[Input], joins: Sequence[Join]) -> list[Out]:
    """All output rows of ``inputs[0] joins[0] inputs[1] joins[1] inputs[2] ...`` (left-deep).

    §4, step by step, for each join of the rows so far (``r``) with the next input (``y``).
    An input row ``x`` has ``ROWTIME = start L(x)``.

    * matched: ``on`` is true and ``L(r) ∩ L(y)`` is non-empty; the new row's life interval is that
      intersection and its ``ROWTIME = max(ROWTIME(r), start L(y))``;
    * LEFT/FULL: each ``r`` with no match, null-padded: ``L = L(r)`` and
      ``ROWTIME = max(ROWTIME(r), end L(r))``;
    * RIGHT/FULL: each ``y`` with no match, null-padded: ``L = L(y)``, ``ROWTIME = end L(y)``.

    An end that is +infinity (a ROWS window that never closed in this finite input) counts as the
    largest rowtime of any input (§4).
    """
    if len(inputs) < 2 or len(joins) != len(inputs) - 1:
        raise ValueError(f"{len(inputs)} inputs need {len(inputs) - 1} joins, got {len(joins)}")
    names = [inp.name for inp in inputs]
    if len(set(names)) != len(names):
        raise ValueError(f"aliases must differ: {names}")

    lives = {inp.name: life_intervals(inp) for inp in inputs}
    rowtimes = [r[inp.rowtime] for inp in inputs for r in inp.rows if r[inp.rowtime] is not None]
    largest_rowtime = max(rowtimes) if rowtimes else None

    def end_of(life: Interval) -> datetime:
        if life.end is not None:
            return life.end
        assert largest_rowtime is not None
        return largest_rowtime

    first = inputs[0]
    partials = [
        _Partial({first.name: x}, life, life.start)
        for x, life in zip(first.rows, lives[first.name])
        if life is not None  # NULL rowtime: in no window, no output at all
    ]
    for step, (join, right) in enumerate(zip(joins, inputs[1:])):
        left_names = names[: step + 1]
        right_rows = [(y, life) for y, life in zip(right.rows, lives[right.name]) if life is not None]
        right_matched = [False] * len(right_rows)
        joined: list[_Partial] = []
        for r in partials:
            r_matched = False
            for j, (y, y_life) in enumerate(right_rows):
                env = {**r.rows, right.name: y}
                if join.on is not None and join.on(env) is not True:
                    continue
                both = r.life.intersect(y_life)
                if both.is_empty():
                    continue
                joined.append(_Partial(env, both, max(r.rowtime, y_life.start)))
                r_matched = True
                right_matched[j] = True
            if not r_matched and join.kind in ("LEFT", "FULL"):
                joined.append(_Partial({**r.rows, right.name: None}, r.life, max(r.rowtime, end_of(r.life))))
        if join.kind in ("RIGHT", "FULL"):
            for (y, y_life), was_matched in zip(right_rows, right_matched):
                if not was_matched:
                    padded: dict[str, Row | None] = dict.fromkeys(left_names)
                    padded[right.name] = y
                    joined.append(_Partial(padded, y_life, end_of(y_life)))
        partials = joined

    return [Out(r.rowtime, r.rows) for r in partials]


# ------------------------------------------------------------------------------------------------
# §6: ASOF joins

ASOF_OPS = ("<=", "<", ">=", ">")


def _asof_allowed(op: str, yt: datetime, xt: datetime) -> bool:
    """``y.t op x.t``."""
    return {"<=": yt <= xt, "<": yt < xt, ">=": yt >= xt, ">": yt > xt}[op]


def asof(
    x: Input,
    y: Input,
    keys: Sequence[tuple[str, str]],
    op: str,
    kind: str = "INNER",
    *,
    x_time: str | None = None,
    y_time: str | None = None,
) -> list[Out]:
    """``X ASOF [LEFT] JOIN Y ON x.k1 = y.k1 AND ... AND y.t op x.t`` (docs/semantics.md §6), over
    inputs whose rows are all there (replay; a stream with an unchanging table).

    ``keys`` are ``(x column, y column)`` equalities, ``op`` one of ``<=``, ``<``, ``>=``, ``>``
    written as ``y.t op x.t``; ``x_time``/``y_time`` name the columns of the inequality (default:
    each input's rowtime, §6's Decision for inputs with no declared rowtime). For each ``x``, in
    arrival order: of the ``y`` with every equality true (SQL: a NULL key never is) and ``y.t op
    x.t`` true (a NULL time never is), the one whose ``y.t`` is the closest to ``x.t`` (looking
    back, ``<=``/``<``: the largest; forward, ``>=``/``>``: the smallest); ties on ``y.t`` go to the
    latest arrival (the later row of ``y.rows``). ``LEFT`` keeps an ``x`` with no such ``y`` with
    ``None``. ``ROWTIME = x``'s rowtime; an ``x`` whose rowtime is NULL is in no window (§1) and gives
    no row, not even a NULL-padded one.
    """
    if op not in ASOF_OPS:
        raise ValueError(f"an ASOF inequality is one of {ASOF_OPS}, not {op!r}")
    if kind not in ("INNER", "LEFT"):
        raise ValueError(f"an ASOF join is INNER or LEFT, not {kind!r}")
    if not keys:
        raise ValueError("an ASOF join needs at least one equality (OJ118)")
    xt_col, yt_col = x_time or x.rowtime, y_time or y.rowtime
    backward = op in ("<=", "<")
    out: list[Out] = []
    for xr in x.rows:
        if xr[x.rowtime] is None:
            continue
        xt = xr[xt_col]
        best: tuple[datetime, int] | None = None  # (y.t, arrival) of the closest y so far
        for arrival, yr in enumerate(y.rows):
            yt = yr[yt_col]
            if xt is None or yt is None or and_(*(sql_eq(xr[a], yr[b]) for a, b in keys)) is not True:
                continue
            if not _asof_allowed(op, yt, xt):
                continue
            closer = best is None or (yt > best[0] if backward else yt < best[0])
            if closer or (best is not None and yt == best[0]):  # a tie: the later arrival wins
                best = (yt, arrival)
        if best is not None:
            out.append(Out(xr[x.rowtime], {x.name: xr, y.name: y.rows[best[1]]}))
        elif kind == "LEFT":
            out.append(Out(xr[x.rowtime], {x.name: xr, y.name: None}))
    return out


def asof_streamed(
    x: Input,
    y: Input,
    keys: Sequence[tuple[str, str]],
    op: str,
    kind: str = "INNER",
    *,
    watermark: datetime,
) -> list[Out]:
    """The rows an ASOF join of two streams has emitted once its watermark is at ``watermark``
    (docs/semantics.md §6), for rows that all arrived on time (none late) in ``x.rows``/``y.rows``
    order, the inequality being on both rowtimes.

    Each ``x`` gets :func:`asof`'s answer, emitted once no ``y`` that can still arrive (every such
    ``y`` has ``y.t > watermark``) could beat it: looking back (``<=``, ``<``) once ``watermark >=
    x.t``; forward (``>=``, ``>``) once ``watermark >=`` the chosen ``y.t``. An ``x`` with a NULL
    key meets no ``y`` and is answered at once (``LEFT``: with NULLs). **§6's Decision:** an ``ASOF
    LEFT`` that looks forward never emits the NULL row of an ``x`` (non-NULL keys) with no ``y``: a
    later ``y`` of its key can always still come.
    """
    backward = op in ("<=", "<")
    emitted: list[Out] = []
    for o in asof(x, y, keys, op, kind):
        xr, yr = o.rows[x.name], o.rows[y.name]
        assert xr is not None
        if any(xr[a] is None for a, _ in keys):
            emitted.append(o)
        elif backward:
            if watermark >= xr[x.rowtime]:
                emitted.append(o)
        elif yr is not None and watermark >= yr[y.rowtime]:
            emitted.append(o)
    return emitted


# ------------------------------------------------------------------------------------------------
# Conditions in SQL's three-valued logic


def col(env: Env, alias: str, column: str) -> Any:
    """``alias.column`` in a condition: NULL (None) when ``alias`` is null-padded."""
    row = env.get(alias)
    return None if row is None else row[column]


def sql_eq(x: Any, y: Any) -> bool | None:
    """SQL ``x = y``: NULL when either side is NULL (so NULL keys never match)."""
    if x is None or y is None:
        return None
    return bool(x == y)


def and_(*values: bool | None) -> bool | None:
    """SQL ``AND``: false if any is false, else NULL if any is NULL, else true."""
    if any(v is False for v in values):
        return False
    if any(v is None for v in values):
        return None
    return True


def equi(left: str, left_column: str, right: str, right_column: str) -> Condition:
    """The condition ``left.left_column = right.right_column``."""

    def condition(env: Env) -> bool | None:
        return sql_eq(col(env, left, left_column), col(env, right, right_column))

    condition.__doc__ = f"{left}.{left_column} = {right}.{right_column}"
    return condition


# ------------------------------------------------------------------------------------------------
# §11: tumbling windows (STEP and FLOOR ... TO in GROUP BY) and Calcite's CEIL ... TO, TUMBLE,
# HOP and SESSION

_EPOCH = datetime(1970, 1, 1)


def step_floor(t: datetime, step: timedelta) -> datetime:
    """``STEP(t BY step)``: ``t`` floored to a whole number of steps since 1970-01-01 00:00 (UTC)."""
    micros = (t - _EPOCH) // timedelta(microseconds=1)
    size = step // timedelta(microseconds=1)
    return _EPOCH + timedelta(microseconds=micros - micros % size)


def steps_since(t: datetime, origin: datetime, step: timedelta) -> int:
    """KDA's ``FLOOR((t - TIMESTAMP origin) unit / n TO unit)``: the number of whole steps of ``n``
    units from ``origin`` to ``t`` (negative before it); its window is ``origin + k * step``."""
    return (t - origin) // step


def unit_floor(t: datetime, unit: str) -> tuple[datetime, datetime]:
    """``FLOOR(t TO unit)`` in UTC and the start of the next unit: the window ``[start, end)``."""
    if unit == "SECOND":
        start = t.replace(microsecond=0)
        return start, start + timedelta(seconds=1)
    if unit == "MINUTE":
        start = t.replace(second=0, microsecond=0)
        return start, start + timedelta(minutes=1)
    if unit == "HOUR":
        start = t.replace(minute=0, second=0, microsecond=0)
        return start, start + timedelta(hours=1)
    day = t.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "DAY":
        return day, day + timedelta(days=1)
    if unit == "WEEK":  # weeks start on Monday, as Spark's date_trunc has them
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    first = day.replace(day=1)
    months = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
    if unit == "QUARTER":
        first = first.replace(month=(first.month - 1) // 3 * 3 + 1)
    elif unit == "YEAR":
        first = first.replace(month=1)
    m = first.month - 1 + months
    return first, first.replace(year=first.year + m // 12, month=m % 12 + 1)


def unit_ceil(t: datetime, unit: str) -> datetime:
    """Calcite's ``CEIL(t TO unit)`` in UTC: the first start of a unit at or after ``t``, so ``t``
    itself when a unit starts at ``t``. Grouped by, its window is ``(value - 1 unit, value]``."""
    start, end = unit_floor(t, unit)
    return t if start == t else end


def hop_windows(
    t: datetime, slide: timedelta, size: timedelta, offset: timedelta = timedelta(0)
) -> list[tuple[datetime, datetime]]:
    """Calcite's ``HOP(t, slide, size [, TIME offset])`` (``TUMBLE(t, size)`` when ``slide ==
    size``): every window ``[start, start + size)`` holding ``t`` whose start is a whole number of
    slides after ``1970-01-01 00:00:00`` (UTC) plus ``offset``, earliest first. Found by trying
    every start from a window's length before ``t`` to ``t`` (docs/semantics.md §11)."""
    origin = _EPOCH + offset
    first = (t - size - origin) // slide
    out = []
    for k in range(first, (t - origin) // slide + 1):
        start = origin + k * slide
        if start <= t < start + size:
            out.append((start, start + size))
    return out


def hopping_groups(
    rows: Sequence[Row],
    rowtime: str,
    windows: Callable[[datetime], list[tuple[datetime, datetime]]],
    key: Callable[[Row], tuple[Any, ...]],
) -> dict[tuple[Any, ...], list[Row]]:
    """Rows grouped by ``key`` and each window ``[start, end)`` of ``windows(rowtime)`` (a row is
    in every one): ``{(end, start, *key): rows}``; a row whose rowtime is NULL is in no group."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r[rowtime] is None:
            continue
        for start, end in windows(r[rowtime]):
            groups.setdefault((end, start, *key(r)), []).append(r)
    return groups


def session_groups(
    rows: Sequence[Row],
    rowtime: str,
    gap: timedelta,
    key: Callable[[Row], tuple[Any, ...]],
) -> dict[tuple[Any, ...], list[Row]]:
    """Calcite's ``SESSION(t, gap)`` per ``key`` (docs/semantics.md §11): the rows of a key in
    rowtime order, a new session starting at each row that comes more than ``gap`` after the one
    before it (a row exactly ``gap`` after it is in its session); ``{(end, start, *key): rows}``
    with ``start`` the first row's time and ``end`` the last row's plus ``gap`` (the group's
    ``ROWTIME``). A row whose rowtime is NULL is in none."""
    by_key: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r[rowtime] is not None:
            by_key.setdefault(key(r), []).append(r)
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for k, members in by_key.items():
        members.sort(key=lambda r: r[rowtime])
        session: list[Row] = []
        for r in members:
            if session and r[rowtime] - session[-1][rowtime] > gap:
                groups[(session[-1][rowtime] + gap, session[0][rowtime], *k)] = session
                session = []
            session.append(r)
        groups[(session[-1][rowtime] + gap, session[0][rowtime], *k)] = session
    return groups


def tumbling_groups(
    rows: Sequence[Row],
    rowtime: str,
    window: Callable[[datetime], tuple[datetime, datetime]],
    key: Callable[[Row], tuple[Any, ...]],
) -> dict[tuple[Any, ...], list[Row]]:
    """Rows grouped by ``key`` and the tumbling window ``[start, end)`` of their rowtime
    (docs/semantics.md §11): ``{(end, start, *key): rows}``. The group's output ``ROWTIME`` is
    ``end``; a row whose rowtime is NULL is in no group."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r[rowtime] is None:
            continue
        start, end = window(r[rowtime])
        groups.setdefault((end, start, *key(r)), []).append(r)
    return groups


# ------------------------------------------------------------------------------------------------
# §12: sliding windows (window functions over a stream)


@dataclass(frozen=True)
class SlidingCall:
    """One window function of a sliding-window query (docs/semantics.md §12).

    ``function`` is ``COUNT`` (``column=None``: ``COUNT(*)``), ``SUM``, ``MIN``, ``MAX``, ``AVG`` or
    ``LAG``; for ``LAG``, ``k`` is the offset, ``default`` the value when there is no such row and
    ``ignore_nulls`` skips rows whose column is NULL.
    """

    function: str
    column: str | None = None
    k: int = 1
    default: Any = None
    ignore_nulls: bool = False


def _window_of(part: Sequence[tuple[int, Row]], at: int, rowtime: str, window: Window) -> list[Row]:
    """The rows of row ``part[at]``'s window: its partition in (rowtime, arrival) order (§12)."""
    t = part[at][1][rowtime]
    if window.kind == "RANGE":
        assert isinstance(window.a, timedelta)
        return [r for _, r in part if t - window.a <= r[rowtime] <= t - window.b]
    assert isinstance(window.a, int)
    return [r for _, r in part[max(0, at - window.a) : at + 1]]


def _before_in_window(part: Sequence[tuple[int, Row]], at: int, rowtime: str, window: Window) -> list[Row]:
    """The rows before row ``part[at]`` (in partition order) that are in its window, nearest last."""
    t = part[at][1][rowtime]
    if window.kind == "RANGE":
        assert isinstance(window.a, timedelta)
        return [r for _, r in part[:at] if t - window.a <= r[rowtime] <= t - window.b]
    assert isinstance(window.a, int)
    return [r for _, r in part[max(0, at - window.a) : at]]


def _value(call: SlidingCall, rows: Sequence[Row], before: Sequence[Row]) -> Any:
    if call.function == "LAG":
        assert call.column is not None
        candidates = [r for r in before if not (call.ignore_nulls and r[call.column] is None)]
        return candidates[-call.k][call.column] if len(candidates) >= call.k else call.default
    if call.function == "COUNT" and call.column is None:
        return len(rows)
    assert call.column is not None
    values = [r[call.column] for r in rows if r[call.column] is not None]
    if call.function == "COUNT":
        return len(values)
    if not values:
        return None
    if call.function == "SUM":
        return sum(values)
    if call.function == "MIN":
        return min(values)
    if call.function == "MAX":
        return max(values)
    if call.function == "AVG":
        return sum(values) / len(values)
    raise ValueError(f"unknown function {call.function}")


def sliding_window(
    rows: Sequence[Row],
    rowtime: str,
    window: Window,
    calls: Sequence[SlidingCall],
    partition_by: Callable[[Row], Any] = lambda _: (),
    keep: Sequence[str] = ("id",),
) -> list[tuple[Any, ...]]:
    """A sliding-window query over ``rows`` in arrival order (docs/semantics.md §12): one output
    row per input row, ``(ROWTIME, *keep columns, *call values)``, sorted.

    The window of row ``r`` holds the rows of its partition (``partition_by(row)``) in (rowtime,
    arrival) order: for RANGE those whose rowtime is within ``[ROWTIME(r) - a, ROWTIME(r) - b]``,
    peers included; for ROWS ``n``, ``r`` and the ``n`` rows before it. ``LAG`` is the k-th row
    before ``r`` within that window (``default`` when there is none). A row whose rowtime is NULL is
    in no window and gives no row (§1).
    """
    parts: dict[Any, list[tuple[int, Row]]] = {}
    for i, r in enumerate(rows):
        if r[rowtime] is not None:
            parts.setdefault(partition_by(r), []).append((i, r))
    out: list[tuple[Any, ...]] = []
    for part in parts.values():
        part.sort(key=lambda ir: (ir[1][rowtime], ir[0]))
        for at, (_, r) in enumerate(part):
            inside = _window_of(part, at, rowtime, window)
            before = _before_in_window(part, at, rowtime, window)
            values = [_value(c, inside, before) for c in calls]
            out.append((r[rowtime], *(r[c] for c in keep), *values))
    return sorted(out, key=sort_key)


# ------------------------------------------------------------------------------------------------
# Comparing outputs


def sort_key(value: tuple[Any, ...]) -> tuple[Any, ...]:
    """A key that sorts tuples holding None (NULL first) next to values of one type."""
    return tuple((0,) if v is None else (1, v) for v in value)


def as_tuples(outs: Sequence[Out], aliases: Sequence[str], column: str = "id") -> list[tuple[Any, ...]]:
    """``[(ROWTIME, <alias>.column for each alias), ...]``, sorted (None for null-padded).

    With a unique ``id`` per input row this identifies every output row exactly, so two sorted
    lists are equal iff the outputs are equal as multisets.
    """
    tuples = [(o.rowtime, *(None if (row := o.rows.get(a)) is None else row[column] for a in aliases)) for o in outs]
    return sorted(tuples, key=sort_key)


def multiset(tuples: Sequence[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    """The tuples as a multiset, for comparisons that ignore order but count duplicates."""
    return Counter(tuples)


# ------------------------------------------------------------------------------------------------
# §13: stagger windows (KDA's WINDOWED BY STAGGER)


def stagger_windows(
    rows: Sequence[Row],
    rowtime: str,
    size: timedelta,
    key: Callable[[Row], tuple[Any, ...]],
) -> dict[tuple[Any, ...], list[Row]]:
    """Rows grouped by ``key`` and their stagger window (docs/semantics.md §13): ``{(end, start,
    *key): rows}``. Per key, in rowtime order, a row opens a window at its rowtime ``t0`` when the key
    has no open window (none yet, or the last one's end is at or before the row's rowtime), and the
    window holds that key's rows with rowtime in ``[t0, t0 + size)``; its output ``ROWTIME`` is
    ``t0 + size``. A row whose rowtime is NULL is in no window."""
    by_key: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r[rowtime] is not None:
            by_key.setdefault(key(r), []).append(r)
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for k, part in by_key.items():
        start: datetime | None = None
        for r in sorted(part, key=lambda r: r[rowtime]):
            if start is None or r[rowtime] >= start + size:
                start = r[rowtime]
            groups.setdefault((start + size, start, *k), []).append(r)
    return groups


def stream_distinct(
    rows: Sequence[Row], rowtime: str, key: Callable[[Row], tuple[Any, ...]]
) -> list[tuple[datetime, tuple[Any, ...]]]:
    """``SELECT STREAM DISTINCT`` (docs/semantics.md §15): of the rows with equal ``key`` (the select
    items other than ROWTIME), the first in ``rows``' order, as ``(its rowtime, key)``. Over a table
    the order is ROWTIME's (pass the rows sorted by it); on a stream, the order rows arrive in."""
    seen: dict[tuple[Any, ...], datetime] = {}
    for r in rows:
        seen.setdefault(key(r), r[rowtime])
    return [(t, k) for k, t in seen.items()]
