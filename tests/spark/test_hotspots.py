"""``TABLE(HOTSPOTS(CURSOR(query), windowSize, scanRadius, minimumNumberOfPointsInAHotspot))``
(docs/semantics.md §14): Kinesis Data Analytics' hotspots, written as its users write them.

Each row gets ``HOTSPOTS_RESULT``, a JSON text of the hotspots among the last ``windowSize`` rows'
points (its own included): density-based clusters with the scan radius as DBSCAN's epsilon. The
oracle is a brute-force DBSCAN in Python over the same window (every pair of points compared; the
operator uses a grid), row by row, on points generated as the developer guide's hotspot example
generates them: uniform over a 10 x 10 field, one in five from a 1 x 1 square that moves now and
then. A stream, out of order in micro-batches and restarted from its checkpoint, gives exactly the
table's results.
"""

from __future__ import annotations

import json
import math
import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.spark.streams import make_stream, run_with_restart, setting, shuffled_in_chunks

T0 = datetime(2024, 8, 5, 18, 0, 0)
SCHEMA = "ROWTIME TIMESTAMP, id INT, x DOUBLE, y DOUBLE, is_hot STRING"
PROGRAM = (
    'SELECT STREAM "id", "is_hot", HOTSPOTS_RESULT FROM TABLE(HOTSPOTS(\n'
    '    CURSOR(SELECT STREAM ROWTIME, CAST("id" AS VARCHAR(8)) AS "id", "x", "y", "is_hot" FROM "{source}"),\n'
    "    {window},\n    {radius},\n    {points}))"
)


def points(seed: int, n: int, move_every: int = 400) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    hx, hy = rng.uniform(0, 9), rng.uniform(0, 9)
    for i in range(n):
        if i and i % move_every == 0:
            hx, hy = rng.uniform(0, 9), rng.uniform(0, 9)
        hot = rng.random() < 0.2
        x, y = (hx + rng.random(), hy + rng.random()) if hot else (rng.uniform(0, 10), rng.uniform(0, 10))
        rows.append({"ROWTIME": T0 + timedelta(milliseconds=100 * i + rng.randrange(80)), "id": i, "x": x, "y": y,
                     "is_hot": "Y" if hot else "N"})  # fmt: skip
    return rows


def dbscan(window: list[tuple[float, float]], radius: float, min_points: int) -> list[dict[str, Any]]:
    """Every pair compared: core points have ``min_points`` points within ``radius`` (themselves
    included); a hotspot grows from the earliest core point not yet in one, through its core points,
    and takes every point within reach not yet taken."""
    n = len(window)
    near = [[j for j in range(n) if math.dist(window[i], window[j]) <= radius] for i in range(n)]
    label = [-1] * n
    groups: list[list[int]] = []
    for i in range(n):
        if len(near[i]) >= min_points and label[i] < 0:
            label[i] = len(groups)
            members, todo = [i], [i]
            while todo:
                k = todo.pop(0)
                for j in near[k]:
                    if label[j] < 0:
                        label[j] = label[i]
                        members.append(j)
                        if len(near[j]) >= min_points:
                            todo.append(j)
            groups.append(members)
    out = []
    for members in groups:
        lo = [min(window[m][d] for m in members) for d in (0, 1)]
        hi = [max(window[m][d] for m in members) for d in (0, 1)]
        size = (hi[0] - lo[0] + radius) * (hi[1] - lo[1] + radius)
        out.append({"density": len(members) / size, "minValues": lo, "maxValues": hi})
    return sorted(out, key=lambda h: (-h["density"], h["minValues"]))


def model(rows: list[dict[str, Any]], window: int, radius: float, min_points: int) -> dict[str, list[dict[str, Any]]]:
    ordered = sorted(rows, key=lambda r: r["ROWTIME"])
    out: dict[str, list[dict[str, Any]]] = {}
    last: list[tuple[float, float]] = []
    for r in ordered:
        last = [*last, (r["x"], r["y"])][-window:]
        out[str(r["id"])] = dbscan(last, radius, min_points)
    return out


def close(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> bool:
    return len(got) == len(want) and all(
        math.isclose(g["density"], w["density"], rel_tol=1e-9)
        and all(math.isclose(a, b) for a, b in zip(g["minValues"] + g["maxValues"], w["minValues"] + w["maxValues"]))
        for g, w in zip(got, want)
    )


def as_table(spark: Any, name: str, rows: list[dict[str, Any]]) -> None:
    spark.createDataFrame([tuple(r[c] for c in ("ROWTIME", "id", "x", "y", "is_hot")) for r in rows], SCHEMA)\
        .createOrReplaceTempView(name)  # fmt: skip


def results(rows: list[Any]) -> dict[str, Any]:
    return {r.id: json.loads(r.HOTSPOTS_RESULT) for r in rows}


def test_every_row_gets_the_hotspots_of_its_window(spark):
    rows = points(1, 320, move_every=160)
    as_table(spark, "hs_table", rows)
    df = spark.sql(PROGRAM.format(source="hs_table", window=120, radius=0.5, points=8))
    assert df.columns == ["id", "is_hot", "HOTSPOTS_RESULT"]
    got = results(df.collect())
    want = model(rows, 120, 0.5, 8)
    assert set(got) == set(want)
    wrong = [i for i in want if not close(got[i]["hotspots"], want[i])]
    assert not wrong, (wrong[:3], got[wrong[0]], want[wrong[0]]) if wrong else None
    assert sum(1 for h in want.values() if h) > 200  # most windows hold a hotspot
    assert any(len(h) > 1 for h in want.values())  # and some two (the old square and the new)


def test_the_planted_square_is_the_densest_hotspot(spark):
    """The developer guide's settings (a window of 1000, radius 0.2, 17 points): once the window is
    full, the densest hotspot's box lies around the square the hot points come from, and it is many
    times denser than the field (about 8 points per unit of area)."""
    rows = points(2, 1500, move_every=5000)
    as_table(spark, "hs_planted", rows)
    got = results(spark.sql(PROGRAM.format(source="hs_planted", window=1000, radius=0.2, points=17)).collect())
    hot = [r for r in rows if r["is_hot"] == "Y"]
    sx, sy = min(r["x"] for r in hot), min(r["y"] for r in hot)
    for r in rows[1000:]:
        top = got[str(r["id"])]["hotspots"][0]
        assert top["density"] > 40
        assert sx - 0.2 <= top["minValues"][0] and top["maxValues"][0] <= sx + 1.2
        assert sy - 0.2 <= top["minValues"][1] and top["maxValues"][1] <= sy + 1.2


def test_a_stream_out_of_order_and_restarted_gives_the_tables_results(spark):
    rows = points(3, 500, move_every=250)
    sql = PROGRAM.format(source="{source}", window=150, radius=0.4, points=9)
    as_table(spark, "hs_want", rows)
    want = results(spark.sql(sql.format(source="hs_want")).collect())
    rng = random.Random(4)
    arrival = shuffled_in_chunks(rows, 40, rng)  # shuffled within 4 s, the lateness is 10 s
    far = {"ROWTIME": T0 + timedelta(hours=1), "id": -1, "x": 5.0, "y": 5.0, "is_hot": "N"}
    batches = [arrival[i : i + 60] for i in range(0, len(arrival), 60)] + [[far]]
    src = make_stream(spark, "hs_stream", SCHEMA)
    with setting(spark, "spark.overjoin.lateness", "10 seconds"):
        out = run_with_restart(spark, sql.format(source="hs_stream"), src, batches, stop_after=4)
    got = {k: v for k, v in results(out).items() if k != "-1"}
    assert got == want and sum(1 for v in want.values() if v["hotspots"]) > 300


def test_a_null_value_gives_null_and_leaves_the_window_as_it_was(spark):
    rows = points(5, 260, move_every=1000)
    rows[200]["x"] = None
    as_table(spark, "hs_null", rows)
    got = {
        r.id: r.HOTSPOTS_RESULT
        for r in spark.sql(PROGRAM.format(source="hs_null", window=100, radius=0.5, points=8)).collect()
    }
    assert got["200"] is None
    want = model([r for r in rows if r["x"] is not None], 100, 0.5, 8)
    assert all(close(json.loads(got[i])["hotspots"], want[i]) for i in want)


def test_what_it_cannot_read_is_refused_with_the_reason(spark):
    as_table(spark, "hs_err", points(6, 10))
    with pytest.raises(AnalysisException) as e:
        spark.sql(
            "SELECT STREAM * FROM TABLE(HOTSPOTS(CURSOR(SELECT STREAM ROWTIME, is_hot FROM hs_err), 100, 0.2, 5))"
        )
    assert "OJ124" in str(e.value) and "no numeric column" in str(e.value)


@pytest.mark.parametrize(
    ("args", "bad", "says"),
    [
        (", 99, 0.2, 17", "99", "windowSize of HOTSPOTS is a whole number from 100 to 1000"),
        (", 1000, 0, 17", "0", "scanRadius of HOTSPOTS is a number above 0"),
        (", 1000, 'wide', 17", "'wide'", "scanRadius of HOTSPOTS is a number above 0"),
        (", 1000, 0.2, 1", "1", "minimumNumberOfPointsInAHotspot of HOTSPOTS is a whole number from 2 to 1000"),
        (
            ", 200, 0.2, 300",
            "300",
            "minimumNumberOfPointsInAHotspot of HOTSPOTS is a whole number from 2 to windowSize (200)",
        ),
        (", 1000, 0.2", "))", "expected minimumNumberOfPointsInAHotspot of HOTSPOTS"),
    ],
)
def test_bad_parameters_are_refused_where_they_are(spark, args, bad, says):
    sql = f"SELECT STREAM * FROM TABLE(HOTSPOTS(CURSOR(SELECT STREAM * FROM hs_err){args}))"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    message = str(e.value)
    assert says in message and "OJ001" in message, message
    assert f"pos {sql.rindex(bad)}" in message
