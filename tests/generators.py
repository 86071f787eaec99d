"""Seeded random join cases for differential tests: overjoin's SQL against the reference model.

``random_case(seed)`` builds a :class:`Case`: two or three small inputs (views ``ga``, ``gb``,
``gc``, aliases ``a``, ``b``, ``c``), a random RANGE window on each, a random join type per join,
and everything needed to run it both ways:

* ``case.sql``: the overjoin query, selecting ``ROWTIME`` and every input's ``id``;
* ``case.inputs`` / ``case.joins``: the same query for :func:`tests.reference_model.evaluate`,
  and ``case.expected()``: its answer as sorted ``(ROWTIME, a_id, b_id[, c_id])`` tuples;
* ``case.batches()``: the input split into micro-batches in global rowtime order, and
  ``case.flush_batches()``: far-future rows that close every window (filter their ids out of the
  stream's output with ``case.without_flush``);
* ``shrink(case, still_fails)``: a smaller case that still fails, and ``describe(case)``.

The inputs are built to hit the contract's corners: rowtimes on a whole-second grid with windows
of whole seconds (so rows land exactly on window edges; some are put there on purpose), ties on
rowtime, several keys including NULL, empty inputs, now and then a row with a NULL rowtime.
Every input's rows arrive in non-decreasing rowtime order. Pure Python; no Spark import.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from tests.reference_model import (
    CURRENT_ROW,
    Input,
    Join,
    Out,
    Row,
    Window,
    as_tuples,
    equi,
    evaluate,
    multiset,
    sort_key,
)

__all__ = ["ALIASES", "FLUSH_ID", "SCHEMA", "T0", "VIEWS", "Case", "describe", "random_case", "shrink"]

T0 = datetime(2024, 1, 1, 0, 0, 0)
"""Rowtime 0 of every generated case; rowtimes are T0 + whole seconds."""

ALIASES = ("a", "b", "c")
VIEWS = ("ga", "gb", "gc")
SCHEMA = "id INT, k INT, rowtime TIMESTAMP"
"""The schema of every generated input (column order of :meth:`Case.table_rows`)."""

FLUSH_ID = 9000
"""Ids of :meth:`Case.flush_batches` rows start here; generated ids are below it."""

_SEC = timedelta(seconds=1)


def _at(seconds: int) -> datetime:
    return T0 + seconds * _SEC


@dataclass(frozen=True)
class Case:
    """One generated join query with its inputs. Immutable: :func:`shrink` makes new ones.

    ``rows[i]`` are input ``i``'s rows in arrival order, each ``{"id", "k", "rowtime"}``;
    ``over[i]`` is the ``OVER (...)`` text written for it ("" = no OVER: ``RANGE CURRENT ROW``);
    ``kinds[j]``/``conditions[j]`` describe join ``j`` (between the inputs before it and input
    ``j + 1``): a condition ``(l, r)`` is ``l.k = r.k``, None for CROSS.
    """

    seed: int
    windows: tuple[Window, ...]
    over: tuple[str, ...]
    rows: tuple[tuple[Row, ...], ...]
    kinds: tuple[str, ...]
    conditions: tuple[tuple[str, str] | None, ...]

    @property
    def aliases(self) -> tuple[str, ...]:
        return ALIASES[: len(self.rows)]

    @property
    def views(self) -> tuple[str, ...]:
        return VIEWS[: len(self.rows)]

    @property
    def columns(self) -> list[str]:
        """The output columns of :attr:`sql`: ``ROWTIME, a_id, b_id[, c_id]``."""
        return ["ROWTIME"] + [f"{a}_id" for a in self.aliases]

    @property
    def sql(self) -> str:
        """The overjoin query, e.g. ``SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id FROM ga
        OVER (RANGE INTERVAL '3' SECOND PRECEDING) AS a LEFT JOIN gb AS b ON a.k = b.k``."""
        return self.sql_reading(self.views)

    def sql_reading(self, sources: Sequence[str]) -> str:
        """:attr:`sql` with input ``i`` read from ``sources[i]`` (``STREAM t``, ``STREAM(t)``, a
        view name, a subquery): docs/semantics.md §1 says every spelling returns the same rows."""
        select = ", ".join(["ROWTIME"] + [f"{a}.id AS {a}_id" for a in self.aliases])

        def source(i: int) -> str:
            over = f" OVER ({self.over[i]})" if self.over[i] else ""
            return f"{sources[i]}{over} AS {self.aliases[i]}"

        text = f"SELECT STREAM {select} FROM {source(0)}"
        for j, (kind, cond) in enumerate(zip(self.kinds, self.conditions)):
            text += f" {kind} JOIN {source(j + 1)}"
            if cond is not None:
                text += f" ON {cond[0]}.k = {cond[1]}.k"
        return text

    @property
    def inputs(self) -> list[Input]:
        """The inputs for :func:`tests.reference_model.evaluate`."""
        return [
            Input(a, [dict(r) for r in rs], "rowtime", w) for a, rs, w in zip(self.aliases, self.rows, self.windows)
        ]

    @property
    def joins(self) -> list[Join]:
        """The joins for :func:`tests.reference_model.evaluate`."""
        return [
            Join(kind, None if cond is None else equi(cond[0], "k", cond[1], "k"))
            for kind, cond in zip(self.kinds, self.conditions)
        ]

    def evaluate(self) -> list[Out]:
        return evaluate(self.inputs, self.joins)

    def expected(self) -> list[tuple[Any, ...]]:
        """The reference answer: sorted ``(ROWTIME, a_id, b_id[, c_id])``, None where padded."""
        return as_tuples(self.evaluate(), self.aliases)

    def table_rows(self, i: int) -> list[tuple[Any, ...]]:
        """Input ``i``'s rows as tuples in :data:`SCHEMA` order, for ``createDataFrame``."""
        return [(r["id"], r["k"], r["rowtime"]) for r in self.rows[i]]

    def batches(self, count: int | None = None) -> list[dict[str, list[Row]]]:
        """The rows split into micro-batches in *global* rowtime order: ``{view: rows}`` per batch.

        Batch ``i`` holds every row of every input with rowtime in ``(cut[i-1], cut[i]]``, so no row
        is ever older than a row of an earlier batch (none is late) and ties stay together. A row
        with a NULL rowtime travels with the row that arrived just before it (or in the first
        batch). ``count`` (default: chosen from the seed) is an upper bound: there are at most as
        many batches as distinct rowtimes. Deterministic for a given case and count.
        """
        times = sorted({r["rowtime"] for rs in self.rows for r in rs if r["rowtime"] is not None})
        rng = random.Random(self.seed * 7919 + 17)
        if count is None:
            count = rng.randint(1, 5)
        count = max(1, min(count, len(times)))
        cuts = sorted(rng.sample(times[:-1], count - 1)) + times[-1:] if times else []
        out: list[dict[str, list[Row]]] = [{v: [] for v in self.views} for _ in range(max(1, len(cuts)))]

        def batch_of(t: datetime) -> int:
            return next(i for i, c in enumerate(cuts) if t <= c)

        for view, rs in zip(self.views, self.rows):
            current = 0
            for r in rs:
                if r["rowtime"] is not None:
                    current = batch_of(r["rowtime"])
                out[current][view].append(dict(r))
        return out

    def shuffled_batches(self, lateness: timedelta, count: int | None = None) -> list[dict[str, list[Row]]]:
        """The rows split into micro-batches *out of rowtime order*, but never late.

        Each row arrives at ``rowtime + d``, ``d`` drawn from ``[0, lateness]``; rows are delivered
        in arrival order, cut into ``count`` batches. A row's batch follows only rows that arrived
        before it, so no earlier batch has seen a rowtime above ``its rowtime + lateness``: with
        ``spark.overjoin.lateness = lateness`` no row is older than the watermark (docs/semantics.md
        §8), and replay is the exact answer. Rows with a NULL rowtime arrive at random.
        """
        rng = random.Random(self.seed * 104729 + 3)
        times = [r["rowtime"] for rs in self.rows for r in rs if r["rowtime"] is not None]
        t0 = min(times) if times else T0
        steps = int(lateness / _SEC)
        arrivals: list[tuple[float, float, str, Row]] = []
        span = int((max(times) - t0) / _SEC) if times else 0
        for view, rs in zip(self.views, self.rows):
            for r in rs:
                t = r["rowtime"]
                at = (t - t0) / _SEC + rng.randint(0, steps) if t is not None else rng.uniform(0, span + steps)
                arrivals.append((at, rng.random(), view, r))
        arrivals.sort(key=lambda a: (a[0], a[1]))
        if count is None:
            count = rng.randint(2, 6)
        count = max(1, min(count, len(arrivals)))
        # Cut between distinct arrival times only, so that a batch never splits one arrival moment.
        moments = sorted({a[0] for a in arrivals})
        cuts = sorted(rng.sample(moments[:-1], min(count - 1, max(0, len(moments) - 1)))) + moments[-1:]
        out: list[dict[str, list[Row]]] = [{v: [] for v in self.views} for _ in range(max(1, len(cuts)))]
        for at, _, view, r in arrivals:
            out[next(i for i, c in enumerate(cuts) if at <= c)][view].append(dict(r))
        return out

    def flush_batches(self) -> list[dict[str, list[Row]]]:
        """Two micro-batches to feed after :meth:`batches`, so that a stream emits everything.

        Each holds one row per input far beyond every window, with a key no other row has (minus
        the input's number: they do not even meet each other). After the first, every watermark is
        past every ROWTIME of the case; the second makes Spark run a batch with that watermark
        (``processAllAvailable`` does not wait for the no-data batch that would do it otherwise),
        which emits the last null-padded rows. Flush rows have ids >= :data:`FLUSH_ID`; drop them
        from the output with :meth:`without_flush`.
        """
        times = [r["rowtime"] for rs in self.rows for r in rs if r["rowtime"] is not None]
        widest = max(w.a for w in self.windows)
        assert isinstance(widest, timedelta)
        far = (max(times) if times else T0) + 2 * widest + 100 * _SEC
        return [
            {
                v: [{"id": FLUSH_ID + 10 * n + i, "k": -1 - i, "rowtime": far + n * (widest + 100 * _SEC)}]
                for i, v in enumerate(self.views)
            }
            for n in range(2)
        ]

    @staticmethod
    def without_flush(tuples: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """``tuples`` (as :meth:`expected` shapes them) without rows that involve a flush row."""
        return sorted((t for t in tuples if not any(isinstance(v, int) and v >= FLUSH_ID for v in t[1:])), key=sort_key)

    def with_rows(self, rows: Sequence[Sequence[Row]]) -> Case:
        """The same query over other rows."""
        return replace(self, rows=tuple(tuple(rs) for rs in rows))

    def size(self) -> int:
        return sum(len(rs) for rs in self.rows)


# ------------------------------------------------------------------------------------------------
# Generation


_KINDS = ["INNER", "LEFT", "RIGHT", "FULL", "CROSS"]
_KIND_WEIGHTS = [3, 3, 2, 2, 0.5]


def _window(rng: random.Random) -> tuple[Window, str]:
    """A random RANGE window of whole seconds and the text written for it."""
    form = rng.choices(["current", "preceding", "between"], weights=[3, 4, 3])[0]
    if form == "current":
        return CURRENT_ROW, rng.choice(["", "RANGE CURRENT ROW"])
    if form == "preceding":
        a = rng.randint(1, 8)
        return Window.range(a * _SEC), f"RANGE INTERVAL '{a}' SECOND PRECEDING"
    a = rng.randint(1, 8)
    b = rng.randint(1, a)
    return (
        Window.range(a * _SEC, b * _SEC),
        f"RANGE BETWEEN INTERVAL '{a}' SECOND PRECEDING AND INTERVAL '{b}' SECOND PRECEDING",
    )


def _key(rng: random.Random, keys: int) -> int | None:
    return None if rng.random() < 0.15 else rng.randint(1, keys)


def random_case(seed: int) -> Case:
    """A random case, the same for the same seed (and Python version)."""
    rng = random.Random(seed)
    n_inputs = 3 if rng.random() < 0.25 else 2
    windows_and_text = [_window(rng) for _ in range(n_inputs)]
    windows = tuple(w for w, _ in windows_and_text)
    over = tuple(t for _, t in windows_and_text)
    kinds = tuple(rng.choices(_KINDS, weights=_KIND_WEIGHTS)[0] for _ in range(n_inputs - 1))
    conditions: list[tuple[str, str] | None] = []
    for j, kind in enumerate(kinds):
        conditions.append(None if kind == "CROSS" else (rng.choice(ALIASES[: j + 1]), ALIASES[j + 1]))
    keys = rng.randint(1, 3)
    span = rng.randint(4, 24)

    # (seconds, key) per input; sorted by time below, which makes arrival order = rowtime order.
    drafts: list[list[tuple[int, int | None]]] = []
    for _ in range(n_inputs):
        count = 0 if rng.random() < 0.05 else rng.randint(1, 9)  # now and then an empty input
        times = [rng.randint(0, span) for _ in range(count)]
        if times and rng.random() < 0.5:  # ties on rowtime
            times += [rng.choice(times) for _ in range(rng.randint(1, 2))]
        drafts.append([(t, _key(rng, keys)) for t in times])

    # Rows exactly on window edges: for a row x of the join's left alias, a row y of the right
    # input at x.t + a_X - b_Y (the last moment they meet) or x.t + b_X - a_Y (the first), same key.
    for j, cond in enumerate(conditions):
        left = ALIASES.index(cond[0]) if cond is not None else j
        right = j + 1
        if not drafts[left]:
            continue
        for _ in range(rng.randint(1, 2)):
            x_t, x_k = rng.choice(drafts[left])
            wx, wy = windows[left], windows[right]
            assert isinstance(wx.a, timedelta) and isinstance(wy.a, timedelta)
            edge = x_t + (wx.a - wy.b) // _SEC if rng.random() < 0.5 else x_t + (wx.b - wy.a) // _SEC
            # Now and then just past the edge, where it must not match.
            if rng.random() < 0.25:
                edge += rng.choice([-1, 1])
            drafts[right].append((edge, x_k))

    rows: list[tuple[Row, ...]] = []
    for i, draft in enumerate(drafts):
        ordered = sorted(draft, key=lambda tk: tk[0])
        built: list[Row] = [{"id": 1000 * (i + 1) + n, "k": k, "rowtime": _at(t)} for n, (t, k) in enumerate(ordered)]
        if rng.random() < 0.1:  # a row without rowtime: in no window, never in the output
            built.insert(
                rng.randint(0, len(built)), {"id": 1000 * (i + 1) + 900, "k": _key(rng, keys), "rowtime": None}
            )
        rows.append(tuple(built))
    return Case(seed, windows, over, tuple(rows), kinds, tuple(conditions))


# ------------------------------------------------------------------------------------------------
# Shrinking and describing


def shrink(case: Case, still_fails: Callable[[Case], bool], max_calls: int = 400) -> Case:
    """A smaller case for which ``still_fails`` is still true, found greedily.

    It tries removing runs of rows (halves, quarters, ..., single rows) of each input, keeping every
    removal after which the case still fails, until no single row can go; the query stays as it
    is. ``still_fails(case)`` must be true for ``case`` itself. At most ``max_calls`` calls of
    ``still_fails`` (each may run Spark), so the result is minimal only if that budget sufficed.
    """
    calls = 0

    def fails(c: Case) -> bool:
        nonlocal calls
        calls += 1
        return still_fails(c)

    current = case
    changed = True
    while changed and calls < max_calls:
        changed = False
        for i in range(len(current.rows)):
            chunk = max(1, len(current.rows[i]) // 2)
            while chunk >= 1 and calls < max_calls:
                start = 0
                while start < len(current.rows[i]) and calls < max_calls:
                    rows = list(current.rows)
                    rows[i] = current.rows[i][:start] + current.rows[i][start + chunk :]
                    candidate = current.with_rows(rows)
                    if fails(candidate):
                        current = candidate
                        changed = True
                    else:
                        start += chunk
                chunk //= 2
    return current


def describe(case: Case, actual: Sequence[tuple[Any, ...]] | None = None) -> str:
    """A readable report: seed, SQL, windows, every input row and the expected output (and, given
    ``actual``, what was returned instead)."""

    def fmt_t(t: datetime | None) -> str:
        return "NULL" if t is None else f"+{(t - T0) // _SEC}s"

    def fmt(v: Any) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, datetime):
            return fmt_t(v)
        return str(v)

    lines = [f"seed {case.seed}", f"  {case.sql}", f"  (rowtimes as seconds after {T0.isoformat(sep=' ')})"]
    for view, alias, rs in zip(case.views, case.aliases, case.rows):
        lines.append(f"  {view} AS {alias} ({len(rs)} rows, id/k/rowtime):")
        lines.extend(f"    {r['id']:>5} {fmt(r['k']):>4} {fmt_t(r['rowtime'])}" for r in rs)
    expected = case.expected()
    lines.append(f"  expected ({', '.join(case.columns)}), {len(expected)} rows:")
    lines.extend("    " + " ".join(fmt(v) for v in t) for t in expected)
    if actual is not None:
        want, got = multiset(expected), multiset(list(actual))
        missing = sorted((want - got).elements(), key=sort_key)
        extra = sorted((got - want).elements(), key=sort_key)
        lines.append(f"  actual: {len(actual)} rows; missing {len(missing)}, unexpected {len(extra)}")
        lines.extend("    missing    " + " ".join(fmt(v) for v in t) for t in missing)
        lines.extend("    unexpected " + " ".join(fmt(v) for v in t) for t in extra)
    return "\n".join(lines)
