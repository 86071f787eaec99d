"""``TABLE(RANDOM_CUT_FOREST(CURSOR(query), ...))`` (docs/semantics.md §14): Kinesis Data
Analytics' anomaly score, written as KDA's applications write it.

A random forest has no exact oracle, and no two implementations agree row by row. What is checked:

* the rows are the cursor's, each with ``ANOMALY_SCORE``, on KDA's scale: typical rows about 1,
  planted outliers (a heart rate of 150-200 among 60-100, as the developer guide's anomaly example
  generates) several times more, above every typical row;
* against an independent measure of "distant from other records" (KDA's definition of an anomaly):
  the mean distance to the 10 nearest earlier rows ranks the rows as the scores do;
* the scores are a function of the rows in ROWTIME order: a stream fed out of order in any
  micro-batches, stopped and restarted from its checkpoint, gives exactly the scores of the same
  rows as a table; before the forest holds a quarter sample a row scores 0, a row with a NULL
  value NULL;
* what it cannot score is refused with the reason (OJ124), bad parameters at their place.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.spark.streams import make_stream, run_stream, run_with_restart, setting

T0 = datetime(2024, 6, 1, 9, 0, 0)
SCHEMA = "ROWTIME TIMESTAMP, id INT, heartRate INT, rateType STRING"
PROGRAM = (
    'SELECT STREAM id, "heartRate", "rateType", ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST('
    'CURSOR(SELECT STREAM * FROM "{source}")))'
)


def heart_rates(seed: int, n: int) -> list[dict[str, Any]]:
    """The developer guide's generator: mostly 60-100, about 1 in 100 a high rate of 150-200."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        high = rng.random() < 0.01 and i > 300
        rate = rng.randint(150, 200) if high else rng.randint(60, 100)
        rows.append({"ROWTIME": T0 + timedelta(milliseconds=250 * i + rng.randrange(200)), "id": i,
                     "heartRate": rate, "rateType": "HIGH" if high else "NORMAL"})  # fmt: skip
    return rows


def as_table(spark: Any, name: str, rows: list[dict[str, Any]]) -> None:
    spark.createDataFrame([tuple(r[c] for c in ("ROWTIME", "id", "heartRate", "rateType")) for r in rows], SCHEMA)\
        .createOrReplaceTempView(name)  # fmt: skip


def scores(rows: list[Any]) -> dict[int, float]:
    return {int(r.id): r.ANOMALY_SCORE for r in rows}


def test_published_program_scores_outliers_high_on_kdas_scale(spark):
    rows = heart_rates(1, 1600)
    as_table(spark, "rcf_hr", rows)
    df = spark.sql(PROGRAM.format(source="rcf_hr"))
    assert df.columns == ["id", "heartRate", "rateType", "ANOMALY_SCORE"]
    got = scores(df.collect())
    assert sorted(got) == [r["id"] for r in rows]
    # Before the forest holds a quarter of its sample (256 / 4 rows), a row scores 0.
    assert all(got[i] == 0.0 for i in range(64)) and got[64] > 0.0
    later = [r for r in rows if r["id"] >= 300]
    normal = [got[r["id"]] for r in later if r["rateType"] == "NORMAL"]
    high = [got[r["id"]] for r in later if r["rateType"] == "HIGH"]
    assert len(high) >= 5
    assert 0.5 < sum(normal) / len(normal) < 1.5  # typical rows about 1
    assert min(high) > max(normal) and min(high) > 1.5, (min(high), max(normal))


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        for rank, i in enumerate(order):
            r[i] = float(rank)
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


@pytest.mark.parametrize("seed", [11, 12])
def test_scores_rank_rows_as_their_distance_from_earlier_rows_does(spark, seed):
    """Two numeric columns, three clusters and scattered points: the score ranks rows as the mean
    distance to their 10 nearest earlier rows (within the last 400) does."""
    rng = random.Random(seed)
    centers = [(0.0, 0.0), (10.0, 10.0), (0.0, 12.0)]
    points = []
    for i in range(900):
        if rng.random() < 0.05:
            x, y = rng.uniform(-10, 20), rng.uniform(-10, 22)
        else:
            cx, cy = rng.choice(centers)
            x, y = rng.gauss(cx, 1.0), rng.gauss(cy, 1.0)
        points.append((T0 + timedelta(seconds=i), i, x, y))
    spark.createDataFrame(points, "ROWTIME TIMESTAMP, id INT, x DOUBLE, y DOUBLE").createOrReplaceTempView("rcf_xy")
    got = scores(
        spark.sql(
            "SELECT STREAM id, ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST(CURSOR("
            "SELECT STREAM ROWTIME, x, y, CAST(id AS STRING) AS id FROM rcf_xy), 100, 256, 100000, 1))"
        ).collect()
    )
    knn = []
    for i in range(400, len(points)):
        _, _, x, y = points[i]
        near = sorted(math.dist((x, y), (p[2], p[3])) for p in points[i - 400 : i])[:10]
        knn.append(sum(near) / len(near))
    rho = spearman([got[i] for i in range(400, len(points))], knn)
    assert rho > 0.6, rho


def test_a_stream_gives_the_scores_of_the_same_rows_as_a_table(spark):
    """Out of order within the lateness, in micro-batches of any size: the same scores exactly."""
    rows = heart_rates(2, 700)
    as_table(spark, "rcf_table", rows)
    want = scores(spark.sql(PROGRAM.format(source="rcf_table")).collect())
    rng = random.Random(3)
    arrival = []
    for start in range(0, len(rows), 30):  # shuffled within 7.5 s, the lateness is 10 s
        chunk = rows[start : start + 30]
        arrival += rng.sample(chunk, len(chunk))
    sizes = [rng.randint(1, 90) for _ in range(40)]
    batches, at = [], 0
    for size in sizes:
        if at < len(arrival):
            batches.append(arrival[at : at + size])
            at += size
    batches.append(arrival[at:])
    far = {"ROWTIME": T0 + timedelta(hours=1), "id": -1, "heartRate": 70, "rateType": "NORMAL"}
    src = make_stream(spark, "rcf_stream", SCHEMA)
    with setting(spark, "spark.overjoin.lateness", "10 seconds"):
        run = run_stream(
            spark, PROGRAM.format(source="rcf_stream"), [{"rcf_stream": b} for b in [*batches, [far]]],
            {"rcf_stream": src},
        )  # fmt: skip
    got = {i: s for i, s in scores(run.rows).items() if i >= 0}
    assert got == want


def test_a_shingled_stream_gives_the_scores_of_the_same_rows_as_a_table(spark):
    """A shingle of 4 (the last rows' points kept in state from one micro-batch to the next, as in
    a published CloudTrail application's shingle of 20): the same scores as the rows as a table."""
    shingled = PROGRAM.replace(")))", "), 60, 64, 1000, 4))")
    rows = heart_rates(6, 240)
    as_table(spark, "rcf_shingle_table", rows)
    want = scores(spark.sql(shingled.format(source="rcf_shingle_table")).collect())
    far = {"ROWTIME": T0 + timedelta(hours=1), "id": -1, "heartRate": 70, "rateType": "NORMAL"}
    batches = [rows[i : i + 35] for i in range(0, len(rows), 35)] + [[far]]
    src = make_stream(spark, "rcf_shingle", SCHEMA)
    run = run_stream(spark, shingled.format(source="rcf_shingle"), [{"rcf_shingle": b} for b in batches],
                     {"rcf_shingle": src})  # fmt: skip
    got = {i: s for i, s in scores(run.rows).items() if i >= 0}
    assert got == want and sum(1 for v in want.values() if v) > 150


def test_a_stream_restarted_from_its_checkpoint_scores_as_if_it_never_stopped(spark):
    rows = heart_rates(4, 500)
    as_table(spark, "rcf_table2", rows)
    want = scores(spark.sql(PROGRAM.format(source="rcf_table2")).collect())
    src = make_stream(spark, "rcf_restart", SCHEMA)
    far = {"ROWTIME": T0 + timedelta(hours=1), "id": -1, "heartRate": 70, "rateType": "NORMAL"}
    batches = [rows[i : i + 60] for i in range(0, len(rows), 60)] + [[far]]
    out = run_with_restart(spark, PROGRAM.format(source="rcf_restart"), src, batches, stop_after=4)
    got = {i: s for i, s in scores(out).items() if i >= 0}
    assert got == want


def test_parameters_shingles_and_nulls(spark):
    """Trees, sample size, decay and a shingle of 3: the first two rows, which fill no shingle, and
    the first 16 shingles (a quarter of a sample of 64) score 0; a NULL heart rate scores NULL."""
    rows = heart_rates(5, 300)
    rows[100]["heartRate"] = None
    as_table(spark, "rcf_params", rows)
    got = scores(
        spark.sql(
            "SELECT STREAM id, ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST(CURSOR(SELECT STREAM ROWTIME, CAST(id AS STRING) AS id, "
            '"heartRate" FROM rcf_params), 50, 64, 1000, 3))'
        ).collect()
    )
    assert all(got[i] == 0.0 for i in range(2 + 16)) and got[18] > 0
    assert got[100] is None and all(s is not None for i, s in got.items() if i != 100)


@pytest.mark.parametrize(
    ("cursor", "problem"),
    [
        ("SELECT STREAM ROWTIME, CAST(id AS DECIMAL(10, 2)) AS d FROM rcf_err", "its column d is DECIMAL(10,2)"),
        ("SELECT STREAM ROWTIME, rateType FROM rcf_err", "no numeric column"),
    ],
)
def test_what_it_cannot_score_is_refused_with_the_reason(spark, cursor, problem):
    as_table(spark, "rcf_err", heart_rates(6, 10))
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"SELECT STREAM * FROM TABLE(RANDOM_CUT_FOREST(CURSOR({cursor})))")
    assert e.value.getCondition() == "OVERJOIN_CURSOR_FUNCTION_INPUT"
    assert "OJ124" in str(e.value) and problem in str(e.value)


@pytest.mark.parametrize(
    ("args", "bad", "says"),
    [
        (", 0", "0", "numberOfTrees of RANDOM_CUT_FOREST is a whole number from 1 to 1000"),
        (", 100, 5", "5", "subSampleSize"),
        (", 100, 256, 100000, 31", "31", "shingleSize"),
        (", 100, 256, 1.5", "1.5", "timeDecay"),
        (", 100, 256, 100000, 1, 7", "7", "at most 4 parameters"),
    ],
)
def test_bad_parameters_are_refused_where_they_are(spark, args, bad, says):
    sql = f"SELECT STREAM * FROM TABLE(RANDOM_CUT_FOREST(CURSOR(SELECT STREAM * FROM rcf_err){args}))"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    message = str(e.value)
    assert says in message and "OJ001" in message
    assert f"pos {sql.rindex(bad)}" in message
