"""``TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(query), 'column', K, windowSize))`` and
``TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'column', windowSize))`` (docs/semantics.md §14):
per tumbling window of ``windowSize`` seconds of the query's ROWTIME, the K most frequent values of
the column (``ITEM``, as a string) with their counts (``ITEM_COUNT``), each row's ROWTIME the
window's end. The oracle is Python's ``Counter`` over the generated rows, per window (counts are
exact; equal counts in the values' order; NULL is no item)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.spark.streams import make_stream, run_stream, run_with_restart, setting

T0 = datetime(2024, 7, 1, 8, 0, 0)
SCHEMA = "ROWTIME TIMESTAMP, sym STRING, qty INT"


def generated(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows, t = [], T0
    for _ in range(n):
        t += timedelta(milliseconds=rng.randint(50, 700))
        sym = None if rng.random() < 0.03 else rng.choices("ABCDEFG", weights=[8, 7, 5, 5, 3, 2, 1])[0]
        rows.append({"ROWTIME": t, "sym": sym, "qty": rng.randint(1, 4)})
    return rows


def model(rows: list[dict[str, Any]], column: str, k: int, seconds: int) -> list[tuple[datetime, str, int]]:
    size = timedelta(seconds=seconds)
    windows: dict[datetime, Counter] = {}
    for r in rows:
        start = T0 + (r["ROWTIME"] - T0) // size * size  # T0 is a whole minute: windows start on the epoch's steps
        counts = windows.setdefault(start + size, Counter())
        if r[column] is not None:
            counts[str(r[column])] += 1
    return sorted(
        (end, item, n)
        for end, counts in windows.items()
        for item, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    )


def as_table(spark: Any, name: str, rows: list[dict[str, Any]]) -> None:
    spark.createDataFrame([(r["ROWTIME"], r["sym"], r["qty"]) for r in rows], SCHEMA).createOrReplaceTempView(name)


@pytest.mark.parametrize(("column", "k", "seconds"), [("sym", 3, 60), ("qty", 2, 20), ("SYM", 10, 5)])
def test_over_a_table_every_window_gives_its_k_most_frequent_values(spark, column, k, seconds):
    rows = generated(1, 500)
    as_table(spark, "topk_t", rows)
    df = spark.sql(
        f"SELECT STREAM * FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM topk_t), '{column}', {k}, {seconds}))"
    )
    assert df.columns == ["ROWTIME", "ITEM", "ITEM_COUNT"]
    assert sorted(tuple(r) for r in df.collect()) == model(rows, column.lower(), k, seconds)


@pytest.mark.streaming
def test_a_stream_emits_each_window_once_the_watermark_passes_its_end(spark):
    rows = generated(2, 400)
    rng = random.Random(5)
    arrival = []
    for start in range(0, len(rows), 12):  # out of order within about 5 s; the lateness is 10 s
        chunk = rows[start : start + 12]
        arrival += rng.sample(chunk, len(chunk))
    batches = [arrival[i : i + 35] for i in range(0, len(arrival), 35)]
    src = make_stream(spark, "topk_s", SCHEMA)
    sql = "SELECT STREAM ROWTIME, ITEM, ITEM_COUNT FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM topk_s), 'sym', 3, 30))"
    with setting(spark, "spark.overjoin.lateness", "10 seconds"):
        run = run_stream(spark, sql, [{"topk_s": b} for b in batches], {"topk_s": src})
    expected = model(rows, "sym", 3, 30)
    emitted: list[tuple] = []
    seen: list[dict[str, Any]] = []
    for fed, out in zip(batches, run.batches):
        seen += fed
        emitted += [tuple(r) for r in out]
        mark = max(r["ROWTIME"] for r in seen) - timedelta(seconds=10, milliseconds=1)
        assert sorted(emitted) == [g for g in expected if g[0] <= mark]
    assert len(set(emitted)) == len(emitted) and len(emitted) >= 9  # three windows of three at least


NAMES = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta", "E": "alpha"}  # F and G have no name


@pytest.mark.streaming
def test_over_a_stream_joined_with_a_table_star_gives_rowtime_once(spark):
    """The cursor's query joins the stream with reference data (AWS's top-K-of-joined-views
    application): the relation still has one ROWTIME, so ``SELECT STREAM *`` fills a two-column
    target by KDA's rule (ROWTIME, ITEM, ITEM_COUNT), the query's join staying inside the cursor."""
    rows = generated(6, 300)
    make_stream(spark, "topk_s0", SCHEMA)
    spark.createDataFrame(sorted(NAMES.items()), "sym STRING, name STRING").createOrReplaceTempView("topk_names")
    named = [{**r, "name": NAMES.get(r["sym"])} for r in rows if r["sym"] in NAMES]
    sql = (
        "SELECT STREAM * FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM {src} AS t "
        "JOIN topk_names AS n ON t.sym = n.sym), 'name', 2, 20))"
    )
    assert spark.sql(sql.format(src="STREAM topk_s0")).columns == ["ROWTIME", "ITEM", "ITEM_COUNT"]
    batches = [rows[i : i + 50] for i in range(0, len(rows), 50)]
    src = make_stream(spark, "topk_s", SCHEMA)
    run = run_stream(spark, sql.format(src="STREAM topk_s"), [{"topk_s": b} for b in batches], {"topk_s": src})
    last = max(r["ROWTIME"] for r in rows)
    assert sorted(tuple(r) for r in run.rows) == [g for g in model(named, "name", 2, 20) if g[0] < last]


@pytest.mark.streaming
def test_a_stream_restarted_from_its_checkpoint_loses_and_repeats_no_window(spark):
    rows = generated(3, 300)
    far = [{"ROWTIME": T0 + timedelta(hours=1), "sym": "Z", "qty": 0}]
    batches = [rows[i : i + 50] for i in range(0, len(rows), 50)] + [far]
    src = make_stream(spark, "topk_r", SCHEMA)
    sql = "SELECT STREAM ROWTIME, ITEM, ITEM_COUNT FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM topk_r), 'sym', 2, 15))"
    got = sorted(tuple(r) for r in run_with_restart(spark, sql, src, batches, stop_after=3))
    assert got == model(rows, "sym", 2, 15)


def test_a_column_the_query_does_not_have_is_refused_naming_its_columns(spark):
    as_table(spark, "topk_e", generated(4, 5))
    with pytest.raises(AnalysisException) as e:
        spark.sql(
            "SELECT STREAM * FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM topk_e), 'ticker', 3, 60))"
        )
    assert e.value.getCondition() == "OVERJOIN_CURSOR_FUNCTION_INPUT"
    assert "no column 'ticker' (it has ROWTIME, sym, qty)" in str(e.value)


@pytest.mark.parametrize(
    ("args", "bad", "says"),
    [
        ("'sym', 0, 60", "0", "K of TOP_K_ITEMS_TUMBLING is a whole number from 1 to 100000"),
        ("'sym', 3, 3601", "3601", "windowSize of TOP_K_ITEMS_TUMBLING is a whole number from 1 to 3600"),
        ("sym, 3, 60", "sym", "columnName of TOP_K_ITEMS_TUMBLING is the name of a column"),
        ("'sym', 3", ")", "expected windowSize of TOP_K_ITEMS_TUMBLING"),
    ],
)
def test_bad_parameters_are_refused_where_they_are(spark, args, bad, says):
    sql = f"SELECT STREAM * FROM TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM topk_e), {args}))"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    message = str(e.value)
    assert says in message and "OJ001" in message
    at = sql.index(bad, sql.index(args)) if bad != ")" else sql.index(args) + len(args)
    assert f"pos {at}" in message


@pytest.mark.parametrize(("column", "seconds"), [("sym", 60), ("qty", 7)])
def test_count_distinct_items_counts_each_windows_distinct_values(spark, column, seconds):
    """Over a table every window, over a stream each window once the watermark passes its end: the
    number of distinct values (NULL is no value), Python's set per window."""
    rows = generated(6, 300)
    size = timedelta(seconds=seconds)
    windows: dict[datetime, set[Any]] = {}
    for r in rows:
        epoch = datetime(1970, 1, 1)  # windows start at whole multiples of the size since the epoch (UTC)
        values = windows.setdefault(epoch + (r["ROWTIME"] - epoch) // size * size + size, set())
        if r[column] is not None:
            values.add(r[column])
    expected = sorted((end, len(values)) for end, values in windows.items())
    sql = f"SELECT STREAM * FROM TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(SELECT STREAM * FROM {{v}}), '{column}', {seconds}))"
    as_table(spark, "cdi_t", rows)
    df = spark.sql(sql.format(v="cdi_t"))
    assert df.columns == ["ROWTIME", "NUMBER_OF_DISTINCT_ITEMS"]
    assert sorted(tuple(r) for r in df.collect()) == expected
    src = make_stream(spark, f"cdi_s_{column}", SCHEMA)
    batches = [rows[i : i + 40] for i in range(0, len(rows), 40)]
    run = run_stream(spark, sql.format(v=f"cdi_s_{column}"), [{f"cdi_s_{column}": b} for b in batches],
                     {f"cdi_s_{column}": src})  # fmt: skip
    mark = rows[-1]["ROWTIME"] - timedelta(milliseconds=1)
    assert sorted(tuple(r) for r in run.rows) == [g for g in expected if g[0] <= mark]
