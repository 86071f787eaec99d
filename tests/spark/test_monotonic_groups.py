"""``GROUP BY`` a column declared with ``MONOTONIC(...)`` (docs/semantics.md §11): KDA groups by a
value it is told only grows, and emits a group when a greater value arrives. Over a stream the
column is the time of the block's groups (its input's rowtime): a group leaves once the watermark
of that column (its latest value less the lateness) passes it. Seen in AWS's web analytics
application (``GROUP BY window_time`` over a ``SELECT STREAM DISTINCT MONOTONIC(STEP(...)) AS
window_time`` subquery) and in KDA's ``GROUP BY MONOTONIC(col)``; tested here with programs of our own."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.reference_model import Row, step_floor, stream_distinct
from tests.spark.streams import make_stream, run_stream, run_with_restart

T0 = datetime(2024, 6, 3, 8, 0, 0)
SCHEMA = "id INT, visitor STRING, logged_at STRING, ROWTIME TIMESTAMP"
MINUTE = timedelta(minutes=1)

VISITORS = """SELECT STREAM 'visitor_count' AS metric, UNIX_TIMESTAMP(weblogs.minute_of_log) AS at_ms,
    COUNT(weblogs.visitor) AS visitors FROM (
    SELECT STREAM DISTINCT
        MONOTONIC(STEP(CHAR_TO_TIMESTAMP('dd/MMM/yyyy:HH:mm:ss z', "logs"."logged_at") BY INTERVAL '60' SECOND)) AS minute_of_log,
        STEP("logs".ROWTIME BY INTERVAL '60' SECOND),
        "logs"."visitor" AS visitor
    FROM {source} AS "logs") AS weblogs
    GROUP BY
    minute_of_log"""


def generated_rows(rng: random.Random, n: int) -> list[Row]:
    """Log lines in arrival order: ``logged_at`` (an Apache log time) a few seconds before arrival, and
    growing with it."""
    rows: list[Row] = []
    t = T0
    previous = T0
    for i in range(n):
        t += timedelta(milliseconds=rng.randrange(200, 4000))
        logged = max(t - timedelta(seconds=rng.randrange(0, 3)), previous)
        previous = logged
        rows.append(
            {
                "id": i,
                "visitor": rng.choice(["v1", "v2", "v3", "v4"]),
                "logged_at": logged.strftime("%d/%b/%Y:%H:%M:%S +0000"),
                "ROWTIME": t,
                "_logged": logged.replace(microsecond=0),
            }
        )
    return rows


def model(rows: list[Row]) -> list[tuple]:
    kept = stream_distinct(
        rows,
        "ROWTIME",
        lambda r: (step_floor(r["_logged"], MINUTE), step_floor(r["ROWTIME"], MINUTE), r["visitor"]),
    )
    counts = Counter(minute for _, (minute, _, _) in kept)
    epoch = datetime(1970, 1, 1)
    return sorted(("visitor_count", (m - epoch) // timedelta(milliseconds=1), n) for m, n in counts.items())


def public(rows: list[Row]) -> list[Row]:
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]


@pytest.fixture
def dq(spark):  # type: ignore[no-untyped-def]
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    yield spark
    spark.conf.unset("spark.sql.ansi.doubleQuotedIdentifiers")


def test_visitors_per_logged_minute_over_a_table(dq: Any) -> None:
    rows = generated_rows(random.Random(1), 150)
    dq.createDataFrame(public(rows), SCHEMA).createOrReplaceTempView("logs_t")
    got = sorted(tuple(r) for r in dq.sql(VISITORS.format(source="logs_t")).collect())
    assert got == model(rows)
    assert len(got) >= 4


def emitted_after(seen: list[Row]) -> list[tuple]:
    """What a stream has emitted once ``seen`` arrived: the minutes of the log a later minute has
    followed (the lateness is 0: a minute's group leaves when a later one arrives)."""
    epoch = datetime(1970, 1, 1)
    latest = max(step_floor(r["_logged"], MINUTE) for r in seen)
    return [g for g in model(seen) if g[1] < (latest - epoch) // timedelta(milliseconds=1)]


def dedupe_state_rows(progress: Any) -> int:
    return sum(op["numRowsTotal"] for op in progress["stateOperators"] if op["operatorName"] == "dedupe")


@pytest.mark.streaming
def test_visitors_per_logged_minute_on_a_stream(dq: Any) -> None:
    """The DISTINCT's keys hold the column declared monotonic: it times the distinct's state and the
    groups above it (the watermark moves below the deduplication, docs/semantics.md §11). After
    every micro-batch the groups out are the model's minutes a later one has followed, and the
    distinct forgets the minutes that left."""
    rows = generated_rows(random.Random(7), 240)
    batches = [rows[i : i + 20] for i in range(0, len(rows), 20)]
    src = make_stream(dq, "logs_s", SCHEMA)
    run = run_stream(
        dq, VISITORS.format(source="STREAM logs_s"), [{"logs_s": public(b)} for b in batches], {"logs_s": src}
    )
    seen: list[Row] = []
    out: list[tuple] = []
    for fed, emitted in zip(batches, run.batches):
        seen += fed
        out += [tuple(r) for r in emitted]
        assert sorted(out) == emitted_after(seen)
    assert len(out) >= 8
    # Bounded state: at the end the distinct holds the keys of the minutes still open, not all.
    latest = max(step_floor(r["_logged"], MINUTE) for r in rows)
    open_keys = {
        (step_floor(r["_logged"], MINUTE), step_floor(r["ROWTIME"], MINUTE), r["visitor"])
        for r in rows
        if step_floor(r["_logged"], MINUTE) >= latest
    }
    all_keys = {(step_floor(r["_logged"], MINUTE), step_floor(r["ROWTIME"], MINUTE), r["visitor"]) for r in rows}
    assert dedupe_state_rows(run.progress[-1]) == len(open_keys) < len(all_keys)


@pytest.mark.streaming
def test_visitors_per_logged_minute_restarted_from_the_checkpoint(dq: Any) -> None:
    """Stopped after half the batches and started again from its checkpoint: every minute once,
    with the model's count."""
    rows = generated_rows(random.Random(8), 200)
    batches = [public(rows[i : i + 20]) for i in range(0, len(rows), 20)]
    src = make_stream(dq, "logs_r", SCHEMA)
    got = run_with_restart(dq, VISITORS.format(source="STREAM logs_r"), src, batches, stop_after=5)
    assert sorted(tuple(r) for r in got) == emitted_after(rows)
    assert len(got) >= 6


@pytest.mark.streaming
def test_on_a_stream_a_subquery_that_aggregates_by_its_rowtime_is_refused_with_the_form_that_works(dq: Any) -> None:
    """A subquery whose state is timed by its ROWTIME and not by the declared column (here an
    aggregation per minute of arrival) keeps its watermark, and Spark keeps one event time per
    stream: the query is refused before it starts, naming the column and the form that runs."""
    make_stream(dq, "logs_a", SCHEMA)
    sql = """SELECT STREAM COUNT(*) AS minutes FROM (
    SELECT STREAM MONOTONIC(STEP("logs".ROWTIME BY INTERVAL '60' SECOND)) AS arrived_minute, COUNT(*) AS lines
    FROM STREAM logs_a AS "logs"
    GROUP BY STEP("logs".ROWTIME BY INTERVAL '60' SECOND)) AS per_minute
    GROUP BY arrived_minute"""
    with pytest.raises(AnalysisException) as info:
        dq.sql(sql).writeStream.format("memory").queryName("never").start()
    message = str(info.value)
    assert "OJ127" in message and "arrived_minute" in message


ORDERS_SCHEMA = "orderId INT, amount INT, order_date TIMESTAMP"
ORDER_TOTALS = (
    'SELECT STREAM ROWTIME, "order_date", COUNT(*) AS "orders", SUM("amount") AS "total" '
    'FROM {source} AS o GROUP BY MONOTONIC("order_date")'
)


def order_rows(rng: random.Random, n: int) -> list[Row]:
    """Orders in date order, several per date (a nightly batch's dates, declared monotonic)."""
    rows, day = [], T0
    for i in range(n):
        if rng.random() < 0.3:
            day += timedelta(hours=rng.choice([1, 6, 24]))
        rows.append({"orderId": i, "amount": rng.randint(1, 50), "order_date": day})
    return rows


def order_model(rows: list[Row]) -> list[tuple]:
    totals: dict[datetime, list[int]] = {}
    for r in rows:
        totals.setdefault(r["order_date"], []).append(r["amount"])
    return sorted((d, d, len(a), sum(a)) for d, a in totals.items())


def test_group_by_monotonic_of_a_column_over_a_table(dq: Any) -> None:
    rows = order_rows(random.Random(3), 60)
    dq.createDataFrame(rows, ORDERS_SCHEMA).createOrReplaceTempView("orders_t")
    got = sorted(tuple(r) for r in dq.sql(ORDER_TOTALS.format(source='"orders_t"')).collect())
    assert got == order_model(rows)


@pytest.mark.streaming
def test_group_by_monotonic_of_a_column_on_a_stream_emits_a_date_when_a_later_one_arrives(dq: Any) -> None:
    """``GROUP BY MONOTONIC("order_date")``: the column is the input's rowtime, ROWTIME the group's
    date; a date's group leaves once a later date has arrived (the lateness is 0)."""
    rows = order_rows(random.Random(4), 80)
    batches = [rows[i : i + 10] for i in range(0, len(rows), 10)]
    src = make_stream(dq, "orders_s", ORDERS_SCHEMA)
    run = run_stream(
        dq, ORDER_TOTALS.format(source="STREAM orders_s"), [{"orders_s": b} for b in batches], {"orders_s": src}
    )
    seen: list[Row] = []
    out: list[tuple] = []
    for fed, emitted in zip(batches, run.batches):
        seen += fed
        out += [tuple(r) for r in emitted]
        latest = max(r["order_date"] for r in seen)
        assert sorted(out) == [g for g in order_model(seen) if g[0] < latest]
    assert len(out) >= 5


def test_group_by_monotonic_of_a_column(dq: Any) -> None:
    """``GROUP BY MONOTONIC("batch_end")``: the column is the time of the groups, ROWTIME its value."""
    rows: list[Row] = [
        {"id": i, "visitor": f"v{i % 3}", "logged_at": "", "ROWTIME": T0 + timedelta(seconds=i)} for i in range(30)
    ]
    dq.createDataFrame(rows, SCHEMA).createOrReplaceTempView("logs_t")
    sql = (
        'SELECT STREAM ROWTIME, "batch_end", COUNT(*) AS n FROM (SELECT STREAM "visitor", '
        'STEP("logs_t".ROWTIME BY INTERVAL \'10\' SECOND) AS "batch_end" FROM "logs_t") AS b '
        'GROUP BY MONOTONIC("batch_end")'
    )
    got = sorted(tuple(r) for r in dq.sql(sql).collect())
    ends = Counter(step_floor(r["ROWTIME"], timedelta(seconds=10)) for r in rows)
    assert got == sorted((e, e, n) for e, n in ends.items())


@pytest.mark.streaming
def test_a_plain_subquery_gives_its_watermark_up_to_the_column_declared_monotonic(dq: Any) -> None:
    """``GROUP BY STEP(MONOTONIC(o."order_date") BY ...)`` over ``(SELECT STREAM * FROM ...) AS o``:
    the subquery only passes rows on, so its watermark moves to the declared column."""
    rows = [{**r, "ROWTIME": T0 + timedelta(seconds=i)} for i, r in enumerate(order_rows(random.Random(5), 80))]
    batches = [rows[i : i + 10] for i in range(0, len(rows), 10)]
    src = make_stream(dq, "orders_q", ORDERS_SCHEMA + ", ROWTIME TIMESTAMP")
    sql = (
        'SELECT STREAM STEP(MONOTONIC(o."order_date") BY INTERVAL \'6\' HOUR) AS "day_part", COUNT(*) AS "orders" '
        'FROM (SELECT STREAM * FROM STREAM orders_q WHERE "amount" > 5) AS o '
        "GROUP BY STEP(MONOTONIC(o.\"order_date\") BY INTERVAL '6' HOUR)"
    )
    run = run_stream(dq, sql, [{"orders_q": b} for b in batches], {"orders_q": src})
    size = timedelta(hours=6)
    counts = Counter(step_floor(r["order_date"], size) for r in rows if r["amount"] > 5)
    latest = max(r["order_date"] for r in rows)
    assert sorted(tuple(r) for r in run.rows) == sorted((w, n) for w, n in counts.items() if w + size <= latest)
    assert len(run.rows) >= 3
