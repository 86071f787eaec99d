"""The reference model (tests/reference_model.py) against hand-worked examples of docs/semantics.md.

Every expected output here is worked out by hand from the contract's rules (§2-4), not
read from the model; the seed examples are the acceptance cases the contract names.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from tests.reference_model import (
    CURRENT_ROW,
    Input,
    Interval,
    Join,
    Window,
    and_,
    as_tuples,
    asof,
    asof_streamed,
    col,
    equi,
    evaluate,
    life_interval,
    life_intervals,
    multiset,
    sql_eq,
)

SEC = timedelta(seconds=1)
MIN = timedelta(minutes=1)


def rows(rowtimes_and_keys: list[tuple[datetime | None, object]], first_id: int = 1) -> list[dict]:
    """Rows ``{"id", "t", "k"}`` in the given (arrival) order, with consecutive ids."""
    return [{"id": first_id + i, "t": t, "k": k} for i, (t, k) in enumerate(rowtimes_and_keys)]


T0 = datetime(2024, 1, 1, 12, 0, 0)


def s(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# ------------------------------------------------------------------------------------------------
# Seed 000 (Kinesis Data Analytics SQL): Orders/Shipments, an exact acceptance case.


def hm(hhmm: str) -> datetime:
    h, m = hhmm.split(":")
    return datetime(2024, 3, 1, int(h), int(m))


def test_seed_000_orders_shipments() -> None:
    orders = [("10:00", 100), ("10:10", 101), ("10:20", 102), ("10:25", 103), ("10:40", 104)]
    shipments = [("10:30", 101), ("10:45", 100), ("10:55", 103), ("11:05", 103), ("11:30", 104)]
    # SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime
    # FROM Shipments AS s JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId
    s_in = Input("s", [{"rowtime": hm(t), "orderId": i} for t, i in shipments], "rowtime")
    o_in = Input(
        "o", [{"rowtime": hm(t), "orderId": i} for t, i in orders], "rowtime", Window.range(timedelta(hours=1))
    )
    out = evaluate([s_in, o_in], [Join("INNER", equi("o", "orderId", "s", "orderId"))])
    o_rows = [r.rows["o"] for r in out]
    assert all(o is not None for o in o_rows)  # an inner join pads nothing
    got = sorted((r.rowtime, o["orderId"], o["rowtime"]) for r, o in zip(out, o_rows) if o is not None)
    assert got == [
        (hm("10:30"), 101, hm("10:10")),
        (hm("10:45"), 100, hm("10:00")),
        (hm("10:55"), 103, hm("10:25")),
        (hm("11:05"), 103, hm("10:25")),
        (hm("11:30"), 104, hm("10:40")),
    ]


# ------------------------------------------------------------------------------------------------
# Seed 001 (SQLstream s-Server): the stocks examples, with the errata of docs/semantics.md §9.


def ts(hhmmss: str) -> datetime:
    h, m, sec = hhmmss.split(":")
    return datetime(2019, 3, 30, int(h), int(m), int(sec))


ORDER_QUANTITY = [  # (rowtime, quantity, ticker), the seed's input table
    ("05:02:10", 750, "IBM"),
    ("05:03:10", 1000, "IBM"),
    ("05:03:15", 1000, "GOOGL"),
    ("05:03:20", 2000, "GOOGL"),
    ("05:03:20", 2000, "IBM"),
    ("05:03:28", 1000, "MSFT"),
    ("05:03:30", 2000, "MSFT"),
]
STOCK_PRICE = [  # (rowtime, price, ticker): the seed's input table plus the row it INSERTs later
    ("05:02:10", 75, "IBM"),
    ("05:03:10", 100, "IBM"),
    ("05:03:15", 100, "MSFT"),
    ("05:03:20", 100, "GOOGL"),
    ("05:03:25", 200, "MSFT"),
    ("05:03:30", 200, "IBM"),
]


def stocks(kind: str, until: str = "23:59:59") -> list[tuple]:
    """``oq OVER 1 MINUTE <kind> JOIN sp OVER 1 MINUTE ON oq.ticker = sp.ticker`` over the input
    rows with rowtime <= ``until``, as sorted ``(ROWTIME, sp.ticker, oq.quantity, sp.price)``."""
    oq = Input(
        "oq",
        [{"rowtime": ts(t), "quantity": q, "ticker": k} for t, q, k in ORDER_QUANTITY if ts(t) <= ts(until)],
        "rowtime",
        Window.range(MIN),
    )
    sp = Input(
        "sp",
        [{"rowtime": ts(t), "price": p, "ticker": k} for t, p, k in STOCK_PRICE if ts(t) <= ts(until)],
        "rowtime",
        Window.range(MIN),
    )
    out = evaluate([oq, sp], [Join(kind, equi("oq", "ticker", "sp", "ticker"))])

    def get(row: dict | None, column: str) -> object:
        return None if row is None else row[column]

    return sorted(
        (
            (r.rowtime, get(r.rows["sp"], "ticker"), get(r.rows["oq"], "quantity"), get(r.rows["sp"], "price"))
            for r in out
        ),
        key=lambda t: tuple((0,) if v is None else (1, v) for v in t),
    )


STOCKS_INNER = sorted(
    [
        (ts("05:02:10"), "IBM", 750, 75),
        # "endpoints are included": 05:02:10 and 05:03:10 are exactly one minute apart.
        (ts("05:03:10"), "IBM", 1000, 75),
        (ts("05:03:10"), "IBM", 750, 100),
        (ts("05:03:10"), "IBM", 1000, 100),
        (ts("05:03:20"), "GOOGL", 1000, 100),
        (ts("05:03:20"), "GOOGL", 2000, 100),
        (ts("05:03:20"), "IBM", 2000, 100),
        # Erratum (§9): the seed prints 05:03:25 for these two. MSFT 1000 arrives at 05:03:28,
        # after both MSFT prices (05:03:15, 05:03:25), so the later rowtime of each pair is 05:03:28.
        (ts("05:03:28"), "MSFT", 1000, 100),
        (ts("05:03:28"), "MSFT", 1000, 200),
        (ts("05:03:30"), "MSFT", 2000, 100),
        (ts("05:03:30"), "MSFT", 2000, 200),
        # The inserted IBM 200 at 05:03:30 meets IBM 1000 (05:03:10) and IBM 2000 (05:03:20), 20 s and
        # 10 s earlier; IBM 750 (05:02:10) is 80 s earlier, out of the minute.
        (ts("05:03:30"), "IBM", 1000, 200),
        (ts("05:03:30"), "IBM", 2000, 200),
    ]
)


def test_seed_001_inner() -> None:
    assert stocks("INNER") == STOCKS_INNER


def test_seed_001_inner_first_batch_is_the_rows_up_to_0520() -> None:
    # The seed's first result block is what the stream emits while its clock is at 05:03:20.
    assert [r for r in stocks("INNER") if r[0] <= ts("05:03:20")] == STOCKS_INNER[:7]
    assert len(STOCKS_INNER[:7]) == 7 and STOCKS_INNER[6] == (ts("05:03:20"), "IBM", 2000, 100)


@pytest.mark.parametrize("kind", ["LEFT", "RIGHT", "FULL"])
def test_seed_001_outer_joins_over_the_whole_input_equal_the_inner_join(kind: str) -> None:
    # Erratum (§9): the seed's LEFT/RIGHT/FULL tables show GOOGL 1000 (05:03:15) and MSFT 100
    # (05:03:15) null-padded at 05:03:15. Over the seed's whole input neither is unmatched: GOOGL
    # 1000 meets GOOGL 100 at 05:03:20 (its own table shows that match too) and MSFT 100 meets
    # MSFT 1000 at 05:03:28. Every row of both inputs has a match within the minute, so an outer
    # join adds nothing.
    assert stocks(kind) == STOCKS_INNER


# The seed's outer tables describe the stream when its clock is at 05:03:15: what the rows up to
# then produce. There GOOGL 1000 and MSFT 100 are unmatched, but a null-padded row's ROWTIME is
# the end of its life interval (§4), 05:03:15 + 1 minute, not 05:03:15: until 05:04:15 a
# matching row can still arrive (and, in the whole input, does).
STOCKS_INNER_0515 = [r for r in STOCKS_INNER if r[0] <= ts("05:03:15")]
GOOGL_PADDED = (ts("05:04:15"), None, 1000, None)  # (oq GOOGL 1000, NULLs)
MSFT_PADDED = (ts("05:04:15"), "MSFT", None, 100)  # (NULLs, sp MSFT 100)


def test_seed_001_inputs_up_to_0515() -> None:
    assert stocks("INNER", "05:03:15") == STOCKS_INNER_0515
    assert len(STOCKS_INNER_0515) == 4


def test_seed_001_left_up_to_0515_pads_googl_at_plus_one_minute() -> None:
    assert stocks("LEFT", "05:03:15") == sorted([*STOCKS_INNER_0515, GOOGL_PADDED])


def test_seed_001_right_up_to_0515_pads_msft_at_plus_one_minute() -> None:
    assert stocks("RIGHT", "05:03:15") == sorted([*STOCKS_INNER_0515, MSFT_PADDED])


def test_seed_001_full_up_to_0515_is_left_plus_right() -> None:
    # (None sorts first in the key stocks() uses: GOOGL's padded row has sp.ticker NULL.)
    assert stocks("FULL", "05:03:15") == [*STOCKS_INNER_0515, GOOGL_PADDED, MSFT_PADDED]


def test_seed_001_right_up_to_0525_pads_both_msft_prices() -> None:
    # Prices up to 05:03:25, orders up to 05:03:25 (no MSFT order yet): both MSFT prices unmatched,
    # each padded one minute after its own rowtime.
    assert stocks("RIGHT", "05:03:25") == sorted(
        [*STOCKS_INNER[:7], (ts("05:04:15"), "MSFT", None, 100), (ts("05:04:25"), "MSFT", None, 200)]
    )


def test_seed_001_cross_is_every_pair_within_the_minute() -> None:
    # Erratum: the seed's CROSS table does not follow from its inputs; derive it. Both windows are
    # one minute, so L(x) ∩ L(y) is non-empty iff |x.t - y.t| <= 1 minute.
    oq = Input(
        "oq", [{"rowtime": ts(t), "id": i} for i, (t, _, _) in enumerate(ORDER_QUANTITY)], "rowtime", Window.range(MIN)
    )
    sp = Input(
        "sp", [{"rowtime": ts(t), "id": i} for i, (t, _, _) in enumerate(STOCK_PRICE)], "rowtime", Window.range(MIN)
    )
    got = as_tuples(evaluate([oq, sp], [Join("CROSS")]), ["oq", "sp"])
    want = sorted(
        (max(ts(a), ts(b)), i, j)
        for i, (a, _, _) in enumerate(ORDER_QUANTITY)
        for j, (b, _, _) in enumerate(STOCK_PRICE)
        if abs(ts(a) - ts(b)) <= MIN
    )
    assert got == want
    # The rows at 05:02:10 meet each other and the other input's row at 05:03:10 (exactly one
    # minute later); all other rows lie within 05:03:10-05:03:30, so every pair of them matches.
    assert len(got) == 1 + 2 + 6 * 5


# ------------------------------------------------------------------------------------------------
# Window edges, BETWEEN windows, ties, NULLs


def test_rows_exactly_on_window_edges_match() -> None:
    # a OVER (RANGE INTERVAL '10' SECOND PRECEDING) JOIN b (RANGE CURRENT ROW): L(a)=[t, t+10].
    a = Input("a", rows([(s(0), 1)]), "t", Window.range(10 * SEC))
    b = Input("b", rows([(s(0), 1), (s(10), 1), (s(10.000001), 1), (s(-0.000001), 1)], first_id=11), "t")
    out = evaluate([a, b], [Join("INNER", equi("a", "k", "b", "k"))])
    assert as_tuples(out, ["a", "b"]) == [(s(0), 1, 11), (s(10), 1, 12)]


def test_left_join_pads_at_the_far_edge() -> None:
    a = Input("a", rows([(s(0), 1), (s(3), 2)]), "t", Window.range(10 * SEC))
    b = Input("b", rows([(s(5), 1)], first_id=11), "t")
    out = evaluate([a, b], [Join("LEFT", equi("a", "k", "b", "k"))])
    assert as_tuples(out, ["a", "b"]) == [(s(5), 1, 11), (s(13), 2, None)]


def test_between_preceding_window() -> None:
    # a: RANGE BETWEEN 10 AND 5 SECOND PRECEDING -> L = [t+5, t+10];
    # b: RANGE BETWEEN 4 AND 2 SECOND PRECEDING  -> L = [t+2, t+4].
    # Overlap iff a.t+5 <= b.t+4 and b.t+2 <= a.t+10, i.e. b.t in [a.t+1, a.t+8];
    # ROWTIME = max(a.t+5, b.t+2).
    a = Input("a", rows([(s(0), 1)]), "t", Window.range(10 * SEC, 5 * SEC))
    b = Input("b", rows([(s(t), 1) for t in range(-1, 11)], first_id=100), "t", Window.range(4 * SEC, 2 * SEC))
    out = evaluate([a, b], [Join("FULL", equi("a", "k", "b", "k"))])
    got = as_tuples(out, ["a", "b"])
    matched: list[tuple[datetime, int | None, int]] = [(s(max(5, bt + 2)), 1, 100 + bt + 1) for bt in range(1, 9)]
    unmatched_b: list[tuple[datetime, int | None, int]] = [(s(bt + 4), None, 100 + bt + 1) for bt in (-1, 0, 9, 10)]
    assert got == sorted(matched + unmatched_b, key=lambda t: (t[0], t[1] is not None, t[1] or 0, t[2]))
    # b.t = a.t + 1: a's window opens at 5, b's is [3, 5]: they share exactly the point 5.
    assert (s(5), 1, 102) in got
    # A BETWEEN window only: a alone on the LEFT is padded at a.t + a = 10 s.
    alone = evaluate([a, Input("b", [], "t", Window.range(4 * SEC, 2 * SEC))], [Join("LEFT", equi("a", "k", "b", "k"))])
    assert as_tuples(alone, ["a", "b"]) == [(s(10), 1, None)]


def test_ties_on_rowtime_give_every_pair_once() -> None:
    a = Input("a", rows([(s(1), 7), (s(1), 7), (s(1), 7)]), "t")
    b = Input("b", rows([(s(1), 7), (s(1), 7)], first_id=11), "t")
    out = evaluate([a, b], [Join("INNER", equi("a", "k", "b", "k"))])
    got = as_tuples(out, ["a", "b"])
    assert got == [(s(1), i, j) for i in (1, 2, 3) for j in (11, 12)]
    assert max(multiset(got).values()) == 1


def test_null_keys_never_match_and_are_kept_by_outer_joins() -> None:
    a = Input("a", rows([(s(0), None), (s(0), 1)]), "t", Window.range(5 * SEC))
    b = Input("b", rows([(s(1), None), (s(2), 1)], first_id=11), "t")
    on = equi("a", "k", "b", "k")
    assert as_tuples(evaluate([a, b], [Join("INNER", on)]), ["a", "b"]) == [(s(2), 2, 12)]
    assert as_tuples(evaluate([a, b], [Join("FULL", on)]), ["a", "b"]) == [
        (s(1), None, 11),  # b's NULL-key row: padded at the end of its CURRENT ROW life, 1 s
        (s(2), 2, 12),
        (s(5), 1, None),  # a's NULL-key row: padded at 0 + 5 s
    ]


def test_null_rowtime_rows_produce_nothing_even_in_a_full_join() -> None:
    a = Input("a", rows([(None, 1), (s(0), 1)]), "t", Window.range(5 * SEC))
    b = Input("b", rows([(None, 1), (s(9), 2)], first_id=11), "t")
    assert life_interval(a, 0) is None
    out = evaluate([a, b], [Join("FULL", equi("a", "k", "b", "k"))])
    assert as_tuples(out, ["a", "b"]) == [(s(5), 2, None), (s(9), None, 12)]
    assert as_tuples(evaluate([a, b], [Join("CROSS")]), ["a", "b"]) == []


def test_model_agrees_with_the_closed_form_interval_condition() -> None:
    # §4: with RANGE windows a match is  y.t BETWEEN x.t + b_X - a_Y AND x.t + a_X - b_Y,
    # with ROWTIME max(x.t + b_X, y.t + b_Y). An independent formula, checked on random cases.
    rng = random.Random(20240101)
    for _ in range(200):
        ax, ay = rng.randint(0, 6), rng.randint(0, 6)
        bx, by = rng.randint(0, ax), rng.randint(0, ay)
        xs = rows([(s(rng.randint(0, 15)), rng.choice([1, 2, None])) for _ in range(rng.randint(0, 6))])
        ys = rows([(s(rng.randint(0, 15)), rng.choice([1, 2, None])) for _ in range(rng.randint(0, 6))], first_id=100)
        x_in = Input("x", xs, "t", Window.range(ax * SEC, bx * SEC))
        y_in = Input("y", ys, "t", Window.range(ay * SEC, by * SEC))
        got = as_tuples(evaluate([x_in, y_in], [Join("INNER", equi("x", "k", "y", "k"))]), ["x", "y"])
        want = sorted(
            (max(x["t"] + bx * SEC, y["t"] + by * SEC), x["id"], y["id"])
            for x in xs
            for y in ys
            if x["k"] is not None
            and x["k"] == y["k"]
            and x["t"] + (bx - ay) * SEC <= y["t"] <= x["t"] + (ax - by) * SEC
        )
        assert got == want, (ax, bx, ay, by, xs, ys)


# ------------------------------------------------------------------------------------------------
# ROWS windows


def test_rows_life_intervals() -> None:
    # ROWS 1 PRECEDING: L(x) = [x.t, s.t), s the 2nd row after x.
    a = Input("a", rows([(s(0), 1), (s(1), 1), (s(2), 1), (s(3), 1)]), "t", Window.rows(1))
    assert life_intervals(a) == [
        Interval(s(0), s(2), end_closed=False),
        Interval(s(1), s(3), end_closed=False),
        Interval(s(2), None, end_closed=False),
        Interval(s(3), None, end_closed=False),
    ]


def test_rows_window_matches_the_n_plus_one_latest_rows() -> None:
    # b at t=2 sees the 2 latest rows of a with rowtime <= 2: those at 1 and 2 (the §2 table).
    a = Input("a", rows([(s(0), 1), (s(1), 1), (s(2), 1), (s(3), 1)]), "t", Window.rows(1))
    b = Input("b", rows([(s(2), 1)], first_id=11), "t")
    out = evaluate([a, b], [Join("INNER", equi("a", "k", "b", "k"))])
    assert as_tuples(out, ["a", "b"]) == [(s(2), 2, 11), (s(2), 3, 11)]


def test_rows_ends_are_open_and_ties_use_arrival_order() -> None:
    # ROWS CURRENT ROW with two rows at t=5: the first has L = [5, 5), empty; only the later
    # arrival is "the latest row with rowtime <= 5".
    a = Input("a", rows([(s(5), 1), (s(5), 1)]), "t", Window.rows(0))
    assert life_intervals(a) == [Interval(s(5), s(5), False), Interval(s(5), None, False)]
    first = life_intervals(a)[0]
    assert first is not None and first.is_empty()
    b = Input("b", rows([(s(5), 1)], first_id=11), "t")
    assert as_tuples(evaluate([a, b], [Join("INNER", equi("a", "k", "b", "k"))]), ["a", "b"]) == [(s(5), 2, 11)]
    # LEFT keeps the never-visible row, padded at the end of its (empty) life interval.
    assert as_tuples(evaluate([a, b], [Join("LEFT", equi("a", "k", "b", "k"))]), ["a", "b"]) == [
        (s(5), 1, None),
        (s(5), 2, 11),
    ]


def test_rows_arrival_order_breaks_ties_not_list_position_of_rowtimes() -> None:
    # Out-of-order arrival: the row at t=1 arrives after the one at t=2; the order is by rowtime.
    a = Input("a", rows([(s(2), 1), (s(1), 1)]), "t", Window.rows(0))
    assert life_intervals(a) == [Interval(s(2), None, False), Interval(s(1), s(2), False)]


def test_rows_never_closed_pads_at_the_largest_rowtime_of_either_input() -> None:
    a = Input("a", rows([(s(0), 1), (s(1), 2)]), "t", Window.rows(0))
    b = Input("b", rows([(s(1), 9), (s(7), 9)], first_id=11), "t")
    out = evaluate([a, b], [Join("LEFT", equi("a", "k", "b", "k"))])
    # a@0 leaves its window when a@1 arrives (L = [0, 1)); a@1 never leaves: padded at 7 s, b's last.
    assert as_tuples(out, ["a", "b"]) == [(s(1), 1, None), (s(7), 2, None)]


def test_rows_partition_by_counts_per_partition() -> None:
    a_rows = rows([(s(0), "A"), (s(1), "B")])
    b = Input("b", rows([(s(2), "A")], first_id=11), "t")
    on = equi("a", "k", "b", "k")
    plain = Input("a", a_rows, "t", Window.rows(0))
    # Without PARTITION BY, the B row at 1 s pushes the A row out: L(A) = [0, 1).
    assert as_tuples(evaluate([plain, b], [Join("INNER", on)]), ["a", "b"]) == []
    per_key = Input("a", a_rows, "t", Window.rows(0, partition_by=["k"]))
    assert as_tuples(evaluate([per_key, b], [Join("INNER", on)]), ["a", "b"]) == [(s(2), 1, 11)]


def test_rows_window_joined_to_a_range_window() -> None:
    # a: ROWS CURRENT ROW (rows at 0 and 10 -> L = [0, 10), [10, inf)); b: RANGE 3 s.
    a = Input("a", rows([(s(0), 1), (s(10), 1)]), "t", Window.rows(0))
    b = Input("b", rows([(s(6), 1), (s(7), 1), (s(12), 1)], first_id=11), "t", Window.range(3 * SEC))
    out = evaluate([a, b], [Join("INNER", equi("a", "k", "b", "k"))])
    # b@6: [6, 9] meets [0, 10) -> 6.  b@7: [7, 10] meets [0, 10) at [7, 10) -> 7, and [10, inf) at 10.
    # b@12: [12, 15] meets only [10, inf) -> 12.
    assert as_tuples(out, ["a", "b"]) == [(s(6), 1, 11), (s(7), 1, 12), (s(10), 2, 12), (s(12), 2, 13)]


# ------------------------------------------------------------------------------------------------
# Multi-way joins (the bids/asks/bids shape of seed 000, on small made-up data)


M0 = datetime(2024, 6, 1, 10, 0)


def m(minutes: int) -> datetime:
    return M0 + timedelta(minutes=minutes)


def three_inputs() -> list[Input]:
    # b1 OVER 10 min: L = [t, t+10];  asks OVER 2 min: [t, t+2];  b2 OVER 3 min: [t, t+3]
    b1 = Input(
        "b1",
        [{"id": 1, "t": m(0), "k": "A"}, {"id": 2, "t": m(5), "k": "B"}, {"id": 3, "t": m(20), "k": "A"}],
        "t",
        Window.range(10 * MIN),
    )
    asks = Input(
        "asks", [{"id": 11, "t": m(8), "k": "A"}, {"id": 12, "t": m(30), "k": "B"}], "t", Window.range(2 * MIN)
    )
    b2 = Input(
        "b2",
        [
            {"id": 21, "t": m(9), "k": "A"},
            {"id": 22, "t": m(12), "k": "A"},
            {"id": 23, "t": m(31), "k": "B"},
            {"id": 24, "t": m(25), "k": "A"},
        ],
        "t",
        Window.range(3 * MIN),
    )
    return [b1, asks, b2]


ALIASES = ["b1", "asks", "b2"]


def test_multiway_inner() -> None:
    # b1 JOIN asks ON k: only (1, 11): [0,10] ∩ [8,10] = [8,10]. (2, 12): [5,15] vs [30,32], no.
    # ... JOIN b2 ON b2.k = asks.k: (1,11)+21: [8,10] ∩ [9,12] = [9,10] -> ROWTIME 9, the largest
    # start. (1,11)+22: [8,10] vs [12,15], no; (1,11)+24: no.
    out = evaluate(
        three_inputs(), [Join("INNER", equi("b1", "k", "asks", "k")), Join("INNER", equi("b2", "k", "asks", "k"))]
    )
    assert as_tuples(out, ALIASES) == [(m(9), 1, 11, 21)]


def test_multiway_left_left_pads_at_the_preserved_rows_end() -> None:
    # b1 LEFT JOIN asks: (1,11) life [8,10], ROWTIME 8; (2,-) life [5,15] padded when b1@5's
    # window closed, ROWTIME 15; (3,-) life [20,30], ROWTIME 30.
    # ... LEFT JOIN b2 ON b2.k = b1.k:
    #   (1,11)+21 -> [9,10], ROWTIME max(8, 9) = 9.
    #   (3,-)+24: [20,30] ∩ [25,28] is not empty, but the padded (3,-) only exists from 30 on:
    #   ROWTIME max(30, 25) = 30, never earlier than the padding was decided.
    #   (2,-) meets no B row of b2 in [5,15] (23 is at 31): padded again, max(15, 15) = 15.
    out = evaluate(
        three_inputs(), [Join("LEFT", equi("b1", "k", "asks", "k")), Join("LEFT", equi("b2", "k", "b1", "k"))]
    )
    assert as_tuples(out, ALIASES) == [(m(9), 1, 11, 21), (m(15), 2, None, None), (m(30), 3, None, 24)]


def test_multiway_null_padded_intermediate_cannot_match_on_its_null_side() -> None:
    # Same as above but the second condition is on asks.k, NULL for (2,-) and (3,-): neither
    # matches, both are padded at the end of their b1 row's life.
    out = evaluate(
        three_inputs(), [Join("LEFT", equi("b1", "k", "asks", "k")), Join("LEFT", equi("b2", "k", "asks", "k"))]
    )
    assert as_tuples(out, ALIASES) == [(m(9), 1, 11, 21), (m(15), 2, None, None), (m(30), 3, None, None)]


def test_multiway_full_at_the_top_pads_unmatched_right_rows() -> None:
    out = evaluate(
        three_inputs(), [Join("LEFT", equi("b1", "k", "asks", "k")), Join("FULL", equi("b2", "k", "b1", "k"))]
    )
    # As the LEFT/LEFT case, plus b2 rows 22 (A, 12: [12,15] meets no b1 A row's life [0,10] or
    # [20,30]) and 23 (B, 31: b1@5 ended at 15), padded at the end of their own life.
    assert as_tuples(out, ALIASES) == [
        (m(9), 1, 11, 21),
        (m(15), None, None, 22),
        (m(15), 2, None, None),
        (m(30), 3, None, 24),
        (m(34), None, None, 23),
    ]


def test_multiway_right_then_inner_uses_the_padded_rows_own_life() -> None:
    # b1 RIGHT JOIN asks: (1,11) life [8,10]; (-,12) life [30,32] (asks@30, B, unmatched), padded
    # when asks@30's window closed: ROWTIME 32.
    # ... JOIN b2 ON b2.k = asks.k: (-,12)+23: [30,32] ∩ [31,34] = [31,32] -> ROWTIME
    # max(32, 31) = 32, not the intersection's start 31 (the padding was only known at 32).
    out = evaluate(
        three_inputs(), [Join("RIGHT", equi("b1", "k", "asks", "k")), Join("INNER", equi("b2", "k", "asks", "k"))]
    )
    assert as_tuples(out, ALIASES) == [(m(9), 1, 11, 21), (m(32), None, 12, 23)]


# ------------------------------------------------------------------------------------------------
# The building blocks


def test_interval_intersection() -> None:
    closed = Interval(s(0), s(10))
    assert closed.intersect(Interval(s(10), s(20))) == Interval(s(10), s(10), True)
    assert not closed.intersect(Interval(s(10), s(20))).is_empty()
    assert closed.intersect(Interval(s(5), s(10), False)) == Interval(s(5), s(10), False)
    assert Interval(s(0), s(10), False).intersect(Interval(s(10), None, False)).is_empty()
    assert Interval(s(3), None, False).intersect(Interval(s(1), None, False)) == Interval(s(3), None, False)
    assert Interval(s(11), s(10)).is_empty()


def test_sql_three_valued_logic() -> None:
    assert sql_eq(None, None) is None and sql_eq(1, None) is None
    assert sql_eq(1, 1) is True and sql_eq(1, 2) is False
    assert and_(True, None) is None and and_(False, None) is False and and_(True, True) is True
    assert col({"a": None}, "a", "k") is None and col({"a": {"k": 3}}, "a", "k") == 3


@pytest.mark.parametrize(
    "args",
    [
        ("RANGE", timedelta(seconds=1), timedelta(seconds=2)),  # a < b
        ("RANGE", timedelta(seconds=-1)),
        ("ROWS", -1),
        ("ROWS", 1.5),
        ("GROUPS", 1),
    ],
)
def test_bad_windows_are_rejected(args: tuple) -> None:
    with pytest.raises((ValueError, TypeError)):
        Window(*args)


def test_bad_joins_are_rejected() -> None:
    a = Input("a", [], "t")
    with pytest.raises(ValueError):
        Join("SEMI", None)
    with pytest.raises(ValueError):
        Join("CROSS", equi("a", "k", "b", "k"))
    with pytest.raises(ValueError):
        evaluate([a, Input("a", [], "t")], [Join("CROSS")])
    with pytest.raises(ValueError):
        evaluate([a], [])
    assert Window.range(timedelta(0)) == CURRENT_ROW


# ------------------------------------------------------------------------------------------------
# §6: ASOF joins, worked by hand

# x: id 1 at 10:00 key A, id 2 at 10:05 key A, id 3 at 10:00 key NULL, id 4 at 10:03 key B,
#    id 5 with a NULL rowtime, key A.
# y: id 11 at 09:58 A, id 12 at 10:00 A, id 13 at 10:00 A (ties with 12, arrives later),
#    id 14 at 10:07 A, id 15 at 10:00 NULL, id 16 with a NULL time, key A.
ASOF_X = rows([(T0, "A"), (T0 + 5 * MIN, "A"), (T0, None), (T0 + 3 * MIN, "B"), (None, "A")])
ASOF_Y = rows([(T0 - 2 * MIN, "A"), (T0, "A"), (T0, "A"), (T0 + 7 * MIN, "A"), (T0, None), (None, "A")], first_id=11)


def _asof_tuples(op: str, kind: str) -> list[tuple]:
    out = asof(Input("x", ASOF_X, "t"), Input("y", ASOF_Y, "t"), [("k", "k")], op, kind)
    return as_tuples(out, ["x", "y"])


@pytest.mark.parametrize(
    ("op", "kind", "expected"),
    [
        # Looking back: x1 (10:00) -> the later of the two 10:00 rows (13); x2 (10:05) -> 13 too.
        ("<=", "INNER", [(T0, 1, 13), (T0 + 5 * MIN, 2, 13)]),
        # Strictly before: x1 -> 11 (09:58); x2 -> 13 (10:00, the later arrival of the tie).
        ("<", "INNER", [(T0, 1, 11), (T0 + 5 * MIN, 2, 13)]),
        # Forward: x1 (10:00) -> 13 (at 10:00, the later arrival); x2 (10:05) -> 14 (10:07).
        (">=", "INNER", [(T0, 1, 13), (T0 + 5 * MIN, 2, 14)]),
        # Strictly after: x1 -> 14; x2 -> 14.
        (">", "INNER", [(T0, 1, 14), (T0 + 5 * MIN, 2, 14)]),
        # LEFT keeps x3 (NULL key) and x4 (no B row) with NULLs; x5 (NULL rowtime) never comes out.
        ("<=", "LEFT", [(T0, 1, 13), (T0, 3, None), (T0 + 3 * MIN, 4, None), (T0 + 5 * MIN, 2, 13)]),
        (">", "LEFT", [(T0, 1, 14), (T0, 3, None), (T0 + 3 * MIN, 4, None), (T0 + 5 * MIN, 2, 14)]),
    ],
)
def test_asof_closest_row_ties_to_the_latest_arrival_and_null_keys(op, kind, expected):
    assert _asof_tuples(op, kind) == expected


def test_asof_refuses_what_the_contract_refuses():
    x, y = Input("x", ASOF_X, "t"), Input("y", ASOF_Y, "t")
    with pytest.raises(ValueError, match="equality"):
        asof(x, y, [], "<=")
    with pytest.raises(ValueError, match="inequality"):
        asof(x, y, [("k", "k")], "=")
    with pytest.raises(ValueError, match="INNER or LEFT"):
        asof(x, y, [("k", "k")], "<=", "FULL")


@pytest.mark.parametrize(
    ("op", "watermark", "expected"),
    [
        # Looking back, an x is final once the watermark reaches x.t; x3 (NULL key) at once.
        ("<=", T0 - MIN, [(T0, 3, None)]),
        ("<=", T0, [(T0, 1, 13), (T0, 3, None)]),
        ("<=", T0 + 9 * MIN, [(T0, 1, 13), (T0, 3, None), (T0 + 3 * MIN, 4, None), (T0 + 5 * MIN, 2, 13)]),
        # Forward, once the watermark reaches the chosen y; x4 (key B, no y) never gets its NULL row.
        (">=", T0, [(T0, 1, 13), (T0, 3, None)]),
        (">=", T0 + 7 * MIN, [(T0, 1, 13), (T0, 3, None), (T0 + 5 * MIN, 2, 14)]),
        (">=", T0 + 90 * MIN, [(T0, 1, 13), (T0, 3, None), (T0 + 5 * MIN, 2, 14)]),
    ],
)
def test_asof_streamed_emits_once_the_watermark_rules_out_a_closer_row(op, watermark, expected):
    out = asof_streamed(Input("x", ASOF_X, "t"), Input("y", ASOF_Y, "t"), [("k", "k")], op, "LEFT", watermark=watermark)
    assert as_tuples(out, ["x", "y"]) == expected
