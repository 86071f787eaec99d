"""ROWS windows on streams against the reference model (docs/semantics.md §3, §4, §8).

Generated two-input joins (every join type, ``ROWS n``, ``ROWS CURRENT ROW``, ``PARTITION BY k
ROWS n`` and RANGE windows mixed) run as streams, fed in rowtime order or out of order within the
lateness, and must return the model's rows for the rows the stream saw, with the one documented
exception: a null-padded row whose ROWS window never closes is never emitted by a stream (replay
gives it the largest rowtime; in the model's answer those are the padded rows with exactly that
ROWTIME). The state must stay bounded: n + 1 rows per partition plus the rows within the lateness.

Run more seeds with ``OVERJOIN_ROWS_STREAM_SEEDS``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.generators import FLUSH_ID, SCHEMA, T0, Case, describe, random_case
from tests.reference_model import (
    Input,
    Join,
    Row,
    Window,
    and_,
    as_tuples,
    asof,
    col,
    equi,
    evaluate,
    multiset,
    sql_eq,
)
from tests.seeds import count
from tests.spark.streams import make_stream, run_stream, setting

pytestmark = pytest.mark.streaming

COUNT = count("OVERJOIN_ROWS_STREAM_SEEDS", 10)
SEC = timedelta(seconds=1)


def rows_case(seed: int) -> Case:
    """A generated two-input case with at least one ROWS window (seeded)."""
    s = seed
    while True:
        case = random_case(s)
        s += 100_000
        if len(case.views) == 2:
            break
    rng = random.Random(seed)
    windows, over = list(case.windows), list(case.over)
    for i in rng.sample(range(2), rng.randint(1, 2)):
        n = rng.randint(0, 3)
        form = rng.choice(["rows", "partitioned", "current", "between"])
        if form == "rows":
            windows[i], over[i] = Window.rows(n), f"ROWS {n} PRECEDING"
        elif form == "partitioned":
            windows[i], over[i] = Window.rows(n, ("k",)), f"PARTITION BY k ROWS {n} PRECEDING"
        elif form == "current":
            windows[i], over[i] = Window.rows(0), "ROWS CURRENT ROW"
        else:
            windows[i], over[i] = Window.rows(n), f"ROWS BETWEEN {n} PRECEDING AND CURRENT ROW"
    return replace(case, seed=seed, windows=tuple(windows), over=tuple(over))


def flush_rows(case: Case) -> list[list[dict[str, Any]]]:
    """Two rows per input far beyond every RANGE window, each input with a key of its own: after
    them every watermark is past every closed window of the case."""
    times = [r["rowtime"] for rs in case.rows for r in rs if r["rowtime"] is not None]
    widest = max([w.a for w in case.windows if isinstance(w.a, timedelta)] + [timedelta(0)])
    far = (max(times) if times else T0) + 2 * widest + 100 * SEC
    return [
        [{"id": FLUSH_ID + 10 * n + i, "k": -1 - i, "rowtime": far + n * (widest + 100 * SEC)} for n in range(2)]
        for i in range(len(case.views))
    ]


def stream_expected(case: Case, arrived: list[list[dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """The model's rows over what the stream received (in arrival order, flush rows included),
    without flush rows and without padded rows whose ROWS window never closed."""
    full = case.with_rows(arrived)
    times = [r["rowtime"] for rs in arrived for r in rs if r["rowtime"] is not None]
    largest = max(times)
    rows = case.without_flush(full.expected())
    return [t for t in rows if not (t[0] == largest and None in t[1:])]


def run_case(
    spark: Any, case: Case, batches: list[dict[str, list[dict[str, Any]]]], tag: str, lateness: str | None = None
) -> tuple[list[tuple[Any, ...]], Any]:
    suffix = f"_{tag}{case.seed}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches]
    with setting(spark, "spark.overjoin.lateness", lateness or None):
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    return case.without_flush([tuple(r) for r in run.rows]), run


def _arrival_order(case: Case, batches: list[dict[str, list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
    return [[r for b in batches for r in b.get(v, [])] for v in case.views]


@pytest.mark.parametrize("seed", range(6000, 6000 + COUNT), ids=lambda s: f"seed_{s}")
def test_rows_window_stream_in_order_matches_the_reference_model(spark, seed):
    case = rows_case(seed)
    flush = flush_rows(case)
    batches = case.batches() + [{v: [f[n]] for v, f in zip(case.views, flush)} for n in range(2)]
    actual, run = run_case(spark, case, batches, "ri")
    expected = stream_expected(case, _arrival_order(case, batches))
    assert multiset(actual) == multiset(expected), describe(case, actual)
    dropped = sum(op.get("numRowsDroppedByWatermark", 0) for p in run.progress for op in p.get("stateOperators", []))
    assert dropped == 0


@pytest.mark.parametrize("seed", range(7000, 7000 + COUNT), ids=lambda s: f"seed_{s}")
def test_rows_window_stream_out_of_order_matches_the_reference_model(spark, seed):
    """Rows arrive out of rowtime order within the lateness: a later row, still on time, can end an
    earlier row's window sooner; a pair is emitted only once no such row can come."""
    case = rows_case(seed)
    flush = flush_rows(case)
    batches = case.shuffled_batches(4 * SEC, count=8) + [
        {v: [f[n]] for v, f in zip(case.views, flush)} for n in range(2)
    ]
    actual, _ = run_case(spark, case, batches, "ro", lateness="4 seconds")
    expected = stream_expected(case, _arrival_order(case, batches))
    assert multiset(actual) == multiset(expected), describe(case, actual)


def test_rows_window_state_stays_bounded(spark):
    """A stream 20x longer than its window: state holds n + 1 rows per partition plus the rows
    within the lateness, read from query progress (numRowsTotal)."""
    n, keys, per_batch, batches_count = 2, 3, 6, 40
    rows_a, rows_b, batches = [], [], []
    for b in range(batches_count):
        ba, bb = [], []
        for j in range(per_batch):
            t = T0 + (b * per_batch + j) * SEC
            ba.append({"id": 1000 + b * per_batch + j, "k": j % keys, "rowtime": t})
            bb.append({"id": 5000 + b * per_batch + j, "k": (j + 1) % keys, "rowtime": t})
        rows_a += ba
        rows_b += bb
        batches.append({"ga": ba, "gb": bb})
    case = Case(
        0,
        (Window.rows(n, ("k",)), Window.range(3 * SEC)),
        (f"PARTITION BY k ROWS {n} PRECEDING", "RANGE INTERVAL '3' SECOND PRECEDING"),
        (tuple(rows_a), tuple(rows_b)),
        ("LEFT",),
        (("a", "b"),),
    )
    flush = flush_rows(case)
    batches += [{v: [f[m]] for v, f in zip(case.views, flush)} for m in range(2)]
    actual, run = run_case(spark, case, batches, "rb")
    states = [sum(op["numRowsTotal"] for op in p["stateOperators"]) for p in run.progress if p["stateOperators"]]
    # ROWS side: n + 1 rows per key and the batch's rows; RANGE side: 3 s of rows and one batch.
    bound = keys * (n + 1) + per_batch + 2 * (3 + per_batch + 1)
    assert max(states) <= bound, f"state grew to {max(states)} rows (bound {bound}): {states}"
    assert max(states[len(states) // 2 :]) <= max(states[: len(states) // 2]) + per_batch
    expected = stream_expected(case, _arrival_order(case, batches))
    assert multiset(actual) == multiset(expected), describe(case, actual)


def _stream(spark: Any, name: str, tmp_path: Any) -> None:
    spark.createDataFrame([(1, 1, None)], SCHEMA).write.mode("overwrite").parquet(str(tmp_path / name))
    spark.readStream.schema(SCHEMA).parquet(str(tmp_path / name)).createOrReplaceTempView(name)


@pytest.mark.parametrize(
    "partition", ["rand()", "k + rand()", "1", "no_such_column", "count(k)", "no_such_fn(k)", "k + (SELECT 1)"]
)
def test_rows_window_partitioned_by_what_is_not_a_row_expression_is_refused(spark, tmp_path, partition):
    _stream(spark, "rows_s2", tmp_path)
    with pytest.raises(AnalysisException, match="ROWS_PARTITION_NOT_OF_THE_INPUT") as error:
        spark.sql(
            f"SELECT STREAM * FROM rows_s2 OVER (PARTITION BY {partition} ROWS 2 PRECEDING) AS a "
            "JOIN rows_s2 AS b ON a.k = b.k"
        )
    assert partition in str(error.value) and "rows_s2" in str(error.value)


def _expression_case(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two inputs in rowtime order, keys 0-5 (seeded), then two far flush rows each: once the
    second arrives, the watermark is past every window of the other rows."""
    rng = random.Random(seed)
    inputs = []
    for side in range(2):
        t, rows = T0, []
        for i in range(36):
            t += timedelta(milliseconds=rng.choice([0, 200, 500, 900, 1500]))
            rows.append({"id": 1000 * side + i, "k": rng.randint(0, 5), "rowtime": t})
        rows += [
            {"id": FLUSH_ID + 10 * n + side, "k": -1 - side, "rowtime": t + (600 + 600 * n) * SEC} for n in range(2)
        ]
        inputs.append(rows)
    return inputs[0], inputs[1]


def _expression_model(
    rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]], kind: str, partition: str
) -> list[tuple[Any, ...]]:
    """The reference model's ``(ROWTIME, a.id, b.id)`` of the two queries of
    :func:`test_rows_window_partitioned_by_an_expression_matches_the_model`, the PARTITION BY
    expression evaluated here in Python (Spark's ``pmod`` is Python's ``%`` for a positive divisor)."""
    pmod3 = partition == "pmod(k, 3)"
    a_rows = [{**r, "p": r["k"] % 3 if pmod3 else abs(r["k"] - 2) > 1} for r in rows_a]
    if kind == "inner":
        # a OVER (PARTITION BY <p> ROWS 1 PRECEDING) JOIN b OVER (RANGE 3 s) ON pmod(a.k, 2) = pmod(b.k, 2)
        a = Input("a", a_rows, "rowtime", Window.rows(1, ("p",)))
        b = Input("b", rows_b, "rowtime", Window.range(3 * SEC))

        def on(env: Any) -> bool | None:
            ka, kb = col(env, "a", "k"), col(env, "b", "k")
            return sql_eq(None if ka is None else ka % 2, None if kb is None else kb % 2)

        out = evaluate([a, b], [Join("INNER", on)])
    else:
        # b OVER (RANGE 2 s) LEFT JOIN a OVER (PARTITION BY <p> ROWS 2 PRECEDING) ON a.k = b.k
        b = Input("b", rows_b, "rowtime", Window.range(2 * SEC))
        a = Input("a", a_rows, "rowtime", Window.rows(2, ("p",)))
        out = evaluate([b, a], [Join("LEFT", equi("a", "k", "b", "k"))])
    return as_tuples(out, ["a", "b"])


@pytest.mark.parametrize(
    "seed", range(6500, 6500 + count("OVERJOIN_ROWS_EXPRESSION_SEEDS", 4)), ids=lambda s: f"seed_{s}"
)
def test_rows_window_partitioned_by_an_expression_matches_the_model(spark, seed):
    """``PARTITION BY pmod(k, 3)`` and ``PARTITION BY abs(k - 2) > 1`` (function calls and
    operators over the input's columns), an INNER join and a LEFT join whose preserved side has a
    RANGE window (so every padded row's window closes): replay returns the reference model's rows
    (the model evaluates the expression), and so does the stream, but for the pairs with a flush
    row, which meet at the stream's end that a stream never passes."""
    rows_a, rows_b = _expression_case(seed)
    partition = "pmod(k, 3)" if seed % 2 else "abs(k - 2) > 1"
    queries = {
        "inner": "SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id FROM {a} "
        f"OVER (PARTITION BY {partition} ROWS 1 PRECEDING) AS a "
        "JOIN {b} OVER (RANGE INTERVAL '3' SECOND PRECEDING) AS b ON pmod(a.k, 2) = pmod(b.k, 2)",
        "left": "SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id FROM {b} "
        "OVER (RANGE INTERVAL '2' SECOND PRECEDING) AS b "
        f"LEFT JOIN {{a}} OVER (PARTITION BY {partition} ROWS 2 PRECEDING) AS a ON a.k = b.k",
    }
    for kind, sql in queries.items():
        why = f"seed {seed}, {kind}, PARTITION BY {partition}"
        model = _expression_model(rows_a, rows_b, kind, partition)
        names = {"a": f"pe_a_{kind}{seed}", "b": f"pe_b_{kind}{seed}"}
        spark.createDataFrame(rows_a, SCHEMA).createOrReplaceTempView(names["a"] + "_t")
        spark.createDataFrame(rows_b, SCHEMA).createOrReplaceTempView(names["b"] + "_t")
        replay = [tuple(r) for r in spark.sql(sql.format(a=names["a"] + "_t", b=names["b"] + "_t")).collect()]
        assert multiset(replay) == multiset(model), why
        inputs = {n: make_stream(spark, n, SCHEMA) for n in names.values()}
        batches = [{names["a"]: rows_a[i : i + 6], names["b"]: rows_b[i : i + 6]} for i in range(0, len(rows_a), 6)]
        run = run_stream(spark, sql.format(**names), batches, inputs)
        expected = [r for r in model if not _has_flush(r)]
        assert len([r for r in expected if None not in r]) >= 3, f"{why}: too few matches to mean much"
        if kind == "left":
            assert any(None in r for r in expected), f"{why}: no unmatched row"
        assert multiset([tuple(r) for r in run.rows if not _has_flush(tuple(r))]) == multiset(expected), why


def _has_flush(row: tuple[Any, ...]) -> bool:
    return any(v is not None and v >= FLUSH_ID for v in row[1:])


def test_rows_window_on_spark_operator_is_refused(spark, tmp_path):
    _stream(spark, "rows_s3", tmp_path)
    spark.conf.set("spark.overjoin.join.operator", "spark")
    try:
        with pytest.raises(AnalysisException, match="ROWS_WINDOW_ON_STREAM"):
            spark.sql("SELECT STREAM * FROM rows_s3 OVER (ROWS 2 PRECEDING) AS a JOIN rows_s3 AS b ON a.k = b.k")
    finally:
        spark.conf.unset("spark.overjoin.join.operator")


def test_match_bids_and_asks_view_of_seed_004_streams_the_model_rows(spark, tmp_path):
    """Seed 004's view (s-Server: ``JOIN SALES.ASKS OVER (ROWS CURRENT ROW)``), with its inputs
    read as streams (``STREAM(SALES.BIDS)``), fed in micro-batches: the reference model's rows for
    the view, which replay of the view as printed over the same tables also returns. Each bid meets the latest ask at or before it (over all
    tickers: the window is not partitioned) when ticker, shares and price agree."""
    from tests.corpus_loader import CORPUS_DIR
    from tests.spark.streams import StreamInput

    rng = random.Random(4)
    schema = "rowtime TIMESTAMP, ticker STRING, shares INT, price DOUBLE"
    spark.sql("CREATE DATABASE IF NOT EXISTS SALES")
    inputs = {}
    for name in ("BIDS", "ASKS"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        spark.sql(f"DROP TABLE IF EXISTS SALES.{name}")
        spark.sql(f"CREATE TABLE SALES.{name} ({schema}) USING json LOCATION '{folder}'")
        inputs[name] = StreamInput(name, schema, str(folder))
    batches = []
    ask_times = rng.sample(range(120), 60)  # distinct: the order of tied asks would be arbitrary
    for b in range(6):
        bids = [
            {
                "rowtime": T0 + t * SEC,
                "ticker": rng.choice("XY"),
                "shares": rng.choice([10, 20]),
                "price": rng.choice([5.0, 5.5]),
            }
            for t in sorted(rng.randint(b * 20, b * 20 + 19) for _ in range(10))
        ]
        asks = [
            {
                "rowtime": T0 + t * SEC,
                "ticker": rng.choice("XY"),
                "shares": rng.choice([10, 20]),
                "price": rng.choice([5.0, 5.5]),
            }
            for t in sorted(t for t in ask_times if b * 20 <= t < b * 20 + 20)
        ]
        batches.append({"BIDS": bids, "ASKS": asks})
    # Two more batches far ahead, so that the watermark passes every pair of the case.
    for n in range(2):
        far = T0 + (1000 + 100 * n) * SEC
        batches.append(
            {
                "BIDS": [{"rowtime": far, "ticker": "Z", "shares": 1, "price": 1.0}],
                "ASKS": [{"rowtime": far, "ticker": "W", "shares": 1, "price": 1.0}],
            }
        )
    printed = (CORPUS_DIR / "valid" / "seed053_sguide_match_bids_asks_printed.sql").read_text()
    streamed = (
        printed.replace('"MatchBidsAndAsks"', '"MatchBidsAndAsksStream"')
        .replace("FROM SALES.BIDS", "FROM STREAM(SALES.BIDS)")
        .replace("JOIN SALES.ASKS", "JOIN STREAM(SALES.ASKS)")
    )
    try:
        spark.sql(streamed)
        run = run_stream(spark, "SELECT * FROM MatchBidsAndAsksStream", batches, inputs)
        spark.sql(printed)
        replay = [tuple(r) for r in spark.sql("SELECT * FROM MatchBidsAndAsks").collect()]
        actual = [tuple(r) for r in run.rows]
        # The reference model of the view: bids OVER (RANGE 10 s) JOIN asks OVER (ROWS CURRENT
        # ROW) on ticker, shares and price, the flush rows included (they end the last ask's window).
        bids = [r for b in batches for r in b["BIDS"]]
        asks = [r for b in batches for r in b["ASKS"]]
        on = lambda env: and_(*(equi("A", c, "B", c)(env) for c in ("ticker", "shares", "price")))  # noqa: E731
        out = evaluate(
            [
                Input("B", bids, "rowtime", Window.range(10 * SEC)),
                Input("A", asks, "rowtime", Window.rows(0)),
            ],
            [Join("INNER", on)],
        )
        model = [
            (B["rowtime"], A["rowtime"], B["ticker"], B["shares"], B["price"], A["shares"], A["price"])
            for o in out
            if (B := o.rows["B"]) is not None and (A := o.rows["A"]) is not None
        ]
        assert len(model) >= 5, "the generated bids and asks should match now and then"
        assert multiset(replay) == multiset(model)
        assert multiset(actual) == multiset(model)
    finally:
        spark.sql("DROP VIEW IF EXISTS MatchBidsAndAsks")
        spark.sql("DROP VIEW IF EXISTS MatchBidsAndAsksStream")
        spark.sql("DROP TABLE IF EXISTS SALES.BIDS")
        spark.sql("DROP TABLE IF EXISTS SALES.ASKS")


STREAM_HINTS = [
    # (code, bad query, fixed query, setting for the bad query): each hint's fix, applied.
    (
        "ROWS_PARTITION_NOT_OF_THE_INPUT",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} OVER (PARTITION BY k + rand() ROWS 1 PRECEDING) AS a "
        "JOIN {s2} AS b ON a.k = b.k",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM (SELECT *, floor(k + rand()) AS kr FROM {s1}) "
        "OVER (PARTITION BY kr ROWS 1 PRECEDING) AS a JOIN {s2} AS b ON a.k = b.k",
        None,
    ),
    (
        "ROWS_WINDOW_ON_STREAM",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} OVER (ROWS 1 PRECEDING) AS a JOIN {s2} AS b ON a.k = b.k",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} OVER (ROWS 1 PRECEDING) AS a JOIN {s2} AS b ON a.k = b.k",
        ("spark.overjoin.join.operator", "spark"),
    ),
    (
        "PADDED_ROWS_JOINED_AGAIN",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS a "
        "LEFT JOIN {s2} AS b ON a.k = b.k JOIN {s3} OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS c ON c.k = a.k",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS a "
        "LEFT JOIN {s2} AS b ON a.k = b.k JOIN {s3} OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS c ON c.k = a.k",
        ("spark.overjoin.join.operator", "spark"),
    ),
    (
        "ASOF_STREAM_WITH_TABLE",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {t} a ASOF JOIN {s1} b ON a.k = b.k AND b.rowtime <= a.rowtime",
        "SELECT STREAM ROWTIME, a.id AS a_id FROM {s1} a ASOF JOIN {t} b ON a.k = b.k AND b.rowtime <= a.rowtime",
        None,
    ),
]


def _hint_model(code: str, s1: list[Row], s2: list[Row], s3: list[Row], table: list[Row]) -> list[tuple[Any, ...]]:
    """The reference model's ``(ROWTIME, a.id)`` of each hint's fixed query (STREAM_HINTS) over
    the rows the streams received (flush rows included; their pairs are left out by the caller)."""
    k = equi("a", "k", "b", "k")
    if code == "ASOF_STREAM_WITH_TABLE":
        out = asof(Input("a", s1, "rowtime"), Input("b", table, "rowtime"), [("k", "k")], "<=")
    elif code == "PADDED_ROWS_JOINED_AGAIN":
        five = Window.range(5 * SEC)
        inputs = [Input("a", s1, "rowtime", five), Input("b", s2, "rowtime"), Input("c", s3, "rowtime", five)]
        out = evaluate(inputs, [Join("LEFT", k), Join("INNER", equi("c", "k", "a", "k"))])
    elif code == "ROWS_PARTITION_NOT_OF_THE_INPUT":
        # floor(k + rand()) is k for an integer k: rand() is in [0, 1).
        a = Input("a", [{**r, "kr": r["k"]} for r in s1], "rowtime", Window.rows(1, ("kr",)))
        out = evaluate([a, Input("b", s2, "rowtime")], [Join("INNER", k)])
    else:
        out = evaluate([Input("a", s1, "rowtime", Window.rows(1)), Input("b", s2, "rowtime")], [Join("INNER", k)])
    return [(rowtime, a_id) for rowtime, a_id in as_tuples(out, ["a"])]


@pytest.mark.parametrize(("code", "bad", "fixed", "setting"), STREAM_HINTS, ids=[h[0] for h in STREAM_HINTS])
def test_each_stream_hint_fixes_the_query(spark, code, bad, fixed, setting):
    """The bad query fails before it starts with its sub-condition; the query its hint suggests
    runs as a stream and returns the reference model's rows."""
    tag = code.lower()[:12]
    names = {f"s{i}": f"hint_{tag}_s{i}" for i in (1, 2, 3)}
    inputs = {n: make_stream(spark, n, SCHEMA) for n in names.values()}
    table = f"hint_{tag}_t"
    spark.createDataFrame([(900, 1, T0)], SCHEMA).createOrReplaceTempView(table)
    if setting:
        spark.conf.set(*setting)
    try:
        with pytest.raises(AnalysisException, match=code):
            spark.sql(bad.format(t=table, **names))
    finally:
        if setting:
            spark.conf.unset(setting[0])
    rows: list[dict[str, Any]] = [
        {"id": 10 * i + j, "k": 1, "rowtime": T0 + (2 * j + i) * SEC} for i in range(1, 4) for j in range(3)
    ]
    batch = {n: [r for r in rows if r["id"] // 10 == i] for i, n in enumerate(names.values(), 1)}
    far = [
        {n: [{"id": 9000 + m, "k": 99, "rowtime": T0 + (1000 + 100 * m) * SEC}] for n in names.values()}
        for m in range(2)
    ]
    run = run_stream(spark, fixed.format(t=table, **names), [batch, *far], inputs)
    s1, s2, s3 = (batch[n] + [r for f in far for r in f[n]] for n in names.values())
    expected = [r for r in _hint_model(code, s1, s2, s3, [{"id": 900, "k": 1, "rowtime": T0}]) if r[1] < 9000]
    assert len(expected) >= 3, code
    assert sorted(tuple(r) for r in run.rows if r.a_id < 9000) == sorted(expected), fixed
