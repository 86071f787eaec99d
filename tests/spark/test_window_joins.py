"""Window joins (docs/semantics.md §7): TUMBLE/HOP table functions add window_start and
window_end; joining two of them on window_start joins matching windows; ROWTIME = window_end."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.spark.streams import make_stream, run_stream


def at(s: int) -> dt.datetime:
    return dt.datetime(2024, 2, 2, 12, 0) + dt.timedelta(seconds=s)


S1 = [(1, 10, 5), (2, 20, 30), (3, 30, 70)]  # (id, value, seconds)
S2 = [(1, 11, 50), (2, 21, 65), (3, 31, 100)]

# RisingWave's window join, as its documentation writes it (seed 003).
TUMBLE_SQL = """SELECT ROWTIME, s1.id AS id1, s1.value AS value1, s2.id AS id2, s2.value AS value2, s1.window_start
FROM TUMBLE({a}, ts, interval '1' MINUTE)
JOIN TUMBLE({b}, ts, interval '1' MINUTE)
ON s1.id = s2.id and s1.window_start = s2.window_start"""


def views(spark, a="s1", b="s2"):
    spark.createDataFrame([(i, v, at(t)) for i, v, t in S1], "id int, value int, ts timestamp").createOrReplaceTempView(
        a
    )
    spark.createDataFrame([(i, v, at(t)) for i, v, t in S2], "id int, value int, ts timestamp").createOrReplaceTempView(
        b
    )


def test_tumble_window_join_replay(spark):
    views(spark)
    rows = sorted(tuple(r) for r in spark.sql(TUMBLE_SQL.format(a="s1", b="s2")).collect())
    # id 1: 5 s and 50 s share the window [0, 60); id 2: 30 s and 65 s do not; id 3: 70 s and 100 s share [60, 120).
    assert rows == [(at(60), 1, 10, 1, 11, at(0)), (at(120), 3, 30, 3, 31, at(60))]


def test_hop_windows_give_a_row_to_every_window_it_falls_in(spark):
    views(spark, "h1", "h2")
    sql = (
        "SELECT ROWTIME, h1.id, h1.window_start FROM HOP(h1, ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE) "
        "JOIN HOP(h2, ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE) ON h1.id = h2.id AND h1.window_start = h2.window_start"
    )
    rows = sorted(tuple(r) for r in spark.sql(sql).collect())
    # id 1 (5 s, 50 s): windows [-30, 30) and [0, 60) hold 5 s; [0, 60) and [30, 90) hold 50 s -> [0, 60).
    # id 2 (30 s, 65 s): [30, 90) holds both. id 3 (70 s, 100 s): [60, 120) holds both.
    assert rows == [(at(60), 1, at(0)), (at(90), 2, at(30)), (at(120), 3, at(60))]


def test_left_window_join_pads_with_window_end(spark):
    views(spark, "l1", "l2")
    sql = (
        TUMBLE_SQL.format(a="l1", b="l2")
        .replace("JOIN TUMBLE", "LEFT JOIN TUMBLE")
        .replace("s1.", "l1.")
        .replace("s2.", "l2.")
    )
    rows = sorted(tuple(r) for r in spark.sql(sql).collect())
    assert rows == [(at(60), 1, 10, 1, 11, at(0)), (at(60), 2, 20, None, None, at(0)), (at(120), 3, 30, 3, 31, at(60))]


@pytest.mark.streaming
def test_tumble_window_join_stream(spark):
    schema = "id int, value int, ts timestamp"
    inputs = {"w1": make_stream(spark, "w1", schema), "w2": make_stream(spark, "w2", schema)}

    def rows(data):
        return [{"id": i, "value": v, "ts": at(t)} for i, v, t in data]

    batches = [
        {"w1": rows(S1[:2]), "w2": rows(S2[:1])},
        {"w1": rows(S1[2:]), "w2": rows(S2[1:])},
        {"w1": rows([(9, 0, 400)]), "w2": rows([(8, 0, 400)])},
    ]
    sql = TUMBLE_SQL.format(a="w1", b="w2").replace("s1.", "w1.").replace("s2.", "w2.")
    run = run_stream(spark, sql, batches, inputs)
    assert [sorted(tuple(r) for r in b) for b in run.batches] == [
        [(at(60), 1, 10, 1, 11, at(0))],
        [(at(120), 3, 30, 3, 31, at(60))],
        [],
    ]
    state = [sum(op["numRowsTotal"] for op in p["stateOperators"]) for p in run.progress if p["stateOperators"]]
    assert state[-1] <= 2, state  # the old windows' rows have left the state
