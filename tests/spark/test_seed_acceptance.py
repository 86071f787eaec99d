"""Acceptance: the s-Server stocks examples (seed 001) and the Lenses WITHIN example (seed 002),
with the corrections of docs/semantics.md §9, in replay and as streams.

Expected rows are worked out by hand from the rules (docs/semantics.md §3-4) and written out
in full, with their rowtimes.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.spark.streams import make_stream, run_stream


def t(mmss: str) -> dt.datetime:
    m, s = mmss.split(":")
    return dt.datetime(2019, 3, 30, 5, int(m), int(s))


# stocks.order_quantity and stocks.price, as the seed's input tables give them (ROWTIME, value, TICKER)
ORDER_QUANTITY = [
    ("02:10", 750, "IBM"),
    ("03:10", 1000, "IBM"),
    ("03:15", 1000, "GOOGL"),
    ("03:20", 2000, "GOOGL"),
    ("03:20", 2000, "IBM"),
    ("03:28", 1000, "MSFT"),
    ("03:30", 2000, "MSFT"),
]
STOCK_PRICE = [
    ("02:10", 75, "IBM"),
    ("03:10", 100, "IBM"),
    ("03:15", 100, "MSFT"),
    ("03:20", 100, "GOOGL"),
    ("03:25", 200, "MSFT"),
]
# The row the seed inserts later into the price stream.
IBM_200 = ("03:30", 200, "IBM")

# (ROWTIME, ticker, quantity, ending_price): both windows are one minute, ends included.
INNER = [
    (t("02:10"), "IBM", 750, 75),
    (t("03:10"), "IBM", 1000, 75),  # 05:02:10 is still in the window: ends are included
    (t("03:10"), "IBM", 750, 100),
    (t("03:10"), "IBM", 1000, 100),
    (t("03:20"), "GOOGL", 1000, 100),
    (t("03:20"), "GOOGL", 2000, 100),
    (t("03:20"), "IBM", 2000, 100),  # 05:02:10 has left the window by 05:03:20
    # docs/semantics.md §9: with the input table these are at 05:03:28 and 05:03:30
    (t("03:28"), "MSFT", 1000, 100),
    (t("03:28"), "MSFT", 1000, 200),
    (t("03:30"), "MSFT", 2000, 100),
    (t("03:30"), "MSFT", 2000, 200),
]
# The IBM 200 row at 05:03:30 adds two matches (the seed's "six new rows" are these and MSFT's four).
IBM_200_MATCHES = [(t("03:30"), "IBM", 1000, 200), (t("03:30"), "IBM", 2000, 200)]

QUERY = (
    "SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price "
    "FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq "
    "{join} stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp ON (oq.ticker = sp.ticker)"
)


def load_tables(spark, prices):
    spark.createDataFrame(
        [(t(a), q, k) for a, q, k in ORDER_QUANTITY], "rowtime timestamp, quantity int, ticker string"
    ).createOrReplaceTempView("order_quantity")
    spark.createDataFrame(
        [(t(a), p, k) for a, p, k in prices], "rowtime timestamp, ending_price int, ticker string"
    ).createOrReplaceTempView("stock_price")


def tuples(rows):
    return sorted((tuple(r) for r in rows), key=lambda r: (r[0], str(r[1:])))


@pytest.mark.parametrize("join", ["JOIN", "INNER JOIN"])
def test_stocks_inner_replay(spark, join):
    load_tables(spark, STOCK_PRICE)
    assert tuples(spark.sql(QUERY.format(join=join)).collect()) == tuples(INNER)
    load_tables(spark, [*STOCK_PRICE, IBM_200])
    assert tuples(spark.sql(QUERY.format(join=join)).collect()) == tuples(INNER + IBM_200_MATCHES)


@pytest.mark.parametrize("join", ["LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT OUTER JOIN", "FULL OUTER JOIN"])
def test_stocks_outer_joins_replay(spark, join):
    # §9: the seed's NULL rows (GOOGL 1000, MSFT 100 at 05:03:15) have matches within the
    # minute, so every row matches and the outer joins return exactly the inner join's rows.
    load_tables(spark, [*STOCK_PRICE, IBM_200])
    assert tuples(spark.sql(QUERY.format(join=join)).collect()) == tuples(INNER + IBM_200_MATCHES)


def test_stocks_using_natural_and_comma_forms_agree(spark):
    load_tables(spark, [*STOCK_PRICE, IBM_200])
    base = "FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq "
    spw = "stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp"
    forms = [
        f"SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price {base} JOIN {spw} USING (ticker)",
        f"SELECT STREAM rowtime, ticker, oq.quantity, sp.ending_price {base} NATURAL JOIN {spw}",
        f"SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price {base} CROSS JOIN {spw} WHERE sp.ticker = oq.ticker",
        f"SELECT STREAM rowtime, sp.ticker, oq.quantity, sp.ending_price {base}, {spw} WHERE sp.ticker = oq.ticker",
    ]
    for sql in forms:
        assert tuples(spark.sql(sql).collect()) == tuples(INNER + IBM_200_MATCHES), sql


def test_stocks_cross_join_pairs_every_row_in_both_windows(spark):
    load_tables(spark, [*STOCK_PRICE, IBM_200])
    sql = (
        "SELECT STREAM rowtime, oq.quantity, sp.ending_price FROM order_quantity OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS oq "
        "CROSS JOIN stock_price OVER (RANGE INTERVAL '1' MINUTE PRECEDING) AS sp"
    )
    expected = sorted(
        (max(t(a), t(b)), q, p)
        for a, q, _ in ORDER_QUANTITY
        for b, p, _ in [*STOCK_PRICE, IBM_200]
        if abs((t(a) - t(b)).total_seconds()) <= 60
    )
    assert sorted(tuple(r) for r in spark.sql(sql).collect()) == expected


def _stream_stocks(spark, join, names):
    oq_name, sp_name = names
    inputs = {
        oq_name: make_stream(spark, oq_name, "rowtime timestamp, quantity int, ticker string"),
        sp_name: make_stream(spark, sp_name, "rowtime timestamp, ending_price int, ticker string"),
    }

    def oq(rows):
        return [{"rowtime": t(a), "quantity": q, "ticker": k} for a, q, k in rows]

    def sp(rows):
        return [{"rowtime": t(a), "ending_price": p, "ticker": k} for a, p, k in rows]

    # Rows arrive in rowtime order, a few at a time; the last batch moves the watermark past
    # everything with rows that match nothing.
    batches = [
        {oq_name: oq(ORDER_QUANTITY[:1]), sp_name: sp(STOCK_PRICE[:1])},
        {oq_name: oq(ORDER_QUANTITY[1:3]), sp_name: sp(STOCK_PRICE[1:3])},
        {oq_name: oq(ORDER_QUANTITY[3:5]), sp_name: sp(STOCK_PRICE[3:4])},
        {sp_name: sp(STOCK_PRICE[4:])},
        {oq_name: oq(ORDER_QUANTITY[5:]), sp_name: sp([IBM_200])},
        {oq_name: oq([("09:00", 1, "ZZZ")]), sp_name: sp([("09:00", 1, "YYY")])},
        {oq_name: oq([("20:00", 1, "ZZZ")]), sp_name: sp([("20:00", 1, "YYY")])},
    ]
    sql = QUERY.format(join=join).replace("order_quantity", oq_name).replace("stock_price", sp_name)
    return run_stream(spark, sql, batches, inputs)


@pytest.mark.streaming
def test_stocks_inner_stream(spark):
    run = _stream_stocks(spark, "JOIN", ("oq_inner", "sp_inner"))
    flush = {"ZZZ", "YYY"}
    rows = [r for r in tuples(run.rows) if r[1] not in flush and r[2] != 1]
    assert rows == tuples(INNER + IBM_200_MATCHES)
    # Each match is emitted in the micro-batch that brings the later of its two rows.
    assert tuples(run.batches[0]) == tuples(INNER[:1])
    assert tuples(run.batches[4]) == tuples(INNER[7:] + IBM_200_MATCHES)


@pytest.mark.streaming
def test_stocks_full_stream_emits_no_spurious_null_rows(spark):
    run = _stream_stocks(spark, "FULL JOIN", ("oq_full", "sp_full"))
    real = [r for r in tuples(run.rows) if not (r[2] == 1 or r[3] == 1)]
    assert real == tuples(INNER + IBM_200_MATCHES)
    # The 05:09:00 flush rows match nothing: once the watermark passes 05:10:00 (end of their
    # one-minute windows) both come out null-padded, with that ROWTIME.
    padded = [r for r in tuples(run.rows) if r[2] == 1 or r[3] == 1]
    assert padded == tuples([(t("10:00"), None, 1, None), (t("10:00"), "YYY", None, 1)])


CUSTOMERS = [(6, 1, "Frank"), (20, 2, "John")]
ORDERS = [(10, 1, "Computer"), (11, 2, "Keyboard")]
LENSES = (
    "SELECT STREAM ROWTIME, customers.name, orders.item FROM customers LEFT JOIN orders WITHIN 5s "
    "ON customers.id = orders.customer_id"
)


def secs(s: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1, 0, 0, 0) + dt.timedelta(seconds=s)


# §9: customers is the left input. Frank (6 s) and the Computer (10 s) are within 5 s of
# each other: matched at 10 s. John (20 s) has no order within 5 s: null-padded at 20 + 5 s.
LENSES_EXPECTED = [(secs(10), "Frank", "Computer"), (secs(25), "John", None)]


def test_lenses_within_replay(spark):
    spark.createDataFrame(
        [(secs(a), i, n) for a, i, n in CUSTOMERS], "rowtime timestamp, id int, name string"
    ).createOrReplaceTempView("customers")
    spark.createDataFrame(
        [(secs(a), c, n) for a, c, n in ORDERS], "rowtime timestamp, customer_id int, item string"
    ).createOrReplaceTempView("orders")
    assert sorted(tuple(r) for r in spark.sql(LENSES).collect()) == LENSES_EXPECTED
    # WITHIN may also stand before ON (Lenses writes it both ways).
    before_on = LENSES.replace(
        " WITHIN 5s ON customers.id = orders.customer_id", " ON customers.id = orders.customer_id WITHIN 5s"
    )
    assert sorted(tuple(r) for r in spark.sql(before_on).collect()) == LENSES_EXPECTED


@pytest.mark.streaming
def test_lenses_within_stream(spark):
    inputs = {
        "customers_s": make_stream(spark, "customers_s", "rowtime timestamp, id int, name string"),
        "orders_s": make_stream(spark, "orders_s", "rowtime timestamp, customer_id int, item string"),
    }
    batches = [
        {"customers_s": [{"rowtime": secs(6), "id": 1, "name": "Frank"}]},
        {
            "orders_s": [
                {"rowtime": secs(10), "customer_id": 1, "item": "Computer"},
                {"rowtime": secs(11), "customer_id": 2, "item": "Keyboard"},
            ]
        },
        {"customers_s": [{"rowtime": secs(20), "id": 2, "name": "John"}]},
        {
            "customers_s": [{"rowtime": secs(100), "id": 9, "name": "flush"}],
            "orders_s": [{"rowtime": secs(100), "customer_id": 8, "item": "flush"}],
        },
    ]
    sql = LENSES.replace("FROM customers", "FROM customers_s AS customers").replace(
        "JOIN orders", "JOIN orders_s AS orders"
    )
    run = run_stream(spark, sql, batches, inputs)
    assert [sorted(tuple(r) for r in b) for b in run.batches] == [
        [],
        [LENSES_EXPECTED[0]],
        [],
        [LENSES_EXPECTED[1]],
    ]
