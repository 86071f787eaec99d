"""``TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(CURSOR(query), ...))`` (docs/semantics.md §14): KDA's
anomaly score with each numeric column's part of it, as a JSON text in ``ANOMALY_EXPLANATION``
(``{"col":{"DIRECTION":"HIGH","STRENGTH":"0.8567","ATTRIBUTION_SCORE":"1.7447"},...}``, numbers as
strings with four decimals, as the developer guide's blood pressure example shows them).

No exact oracle exists for a random forest; what is checked, on readings generated as that example
generates them (systolic and diastolic pressures, a text level that is not scored):

* the score is the plain ``RANDOM_CUT_FOREST``'s for the same cursor and parameters, exactly;
* the columns' attributions sum to the score (to the four decimals written), each is >= 0;
  ``DIRECTION`` and ``STRENGTH`` say how far above or below the column's median among the forest's
  recent points the value is (about the middle of the normal range, where the readings are made);
* a reading planted high in one column only is explained by that column (the larger part of the
  score), ``HIGH``; one planted low ``LOW``: the independent truth is how the reading was made;
* a stream, in micro-batches out of order and restarted from its checkpoint, explains every row
  exactly as the table does.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import ParseException

from tests.spark.streams import make_stream, run_with_restart, setting, shuffled_in_chunks

T0 = datetime(2024, 7, 2, 14, 0, 0)
RATE = 1 / 150
SCHEMA = "ROWTIME TIMESTAMP, reading STRING, Systolic INT, Diastolic INT, BloodPressureLevel STRING"
EXPLAINED = (
    'SELECT STREAM "reading", "Systolic", "Diastolic", "BloodPressureLevel", ANOMALY_SCORE, ANOMALY_EXPLANATION '
    "FROM TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(\n"
    '    CURSOR(SELECT STREAM * FROM "{source}"), -- inputStream\n'
    "    100, -- numberOfTrees\n    256, -- subSampleSize\n    100000, -- timeDecay\n    1, -- shingleSize\n"
    "    {directionality}))"
)
PLAIN = (
    'SELECT STREAM "reading", ANOMALY_SCORE FROM TABLE(RANDOM_CUT_FOREST('
    'CURSOR(SELECT STREAM * FROM "{source}"), 100, 256, 100000, 1))'
)


def readings(seed: int, n: int) -> list[dict[str, Any]]:
    """Mostly normal pressures (systolic 90-120, diastolic 60-80); after the first 300, about 1 in 150
    a systolic planted high (160-200, diastolic normal) and as many a diastolic planted low (20-35,
    systolic normal). Rarer than that, they stay outliers; much more often (1 in 60), they form a
    cluster of their own in the sample, and a reading at the low end of that cluster is partly
    explained as low, as the forest's cuts see it."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        systolic, diastolic, level = rng.randint(90, 120), rng.randint(60, 80), "NORMAL"
        u = rng.random()
        if i > 300 and u < RATE:
            systolic, level = rng.randint(160, 200), "HIGH_SYSTOLIC"
        elif i > 300 and u < 2 * RATE:
            diastolic, level = rng.randint(20, 35), "LOW_DIASTOLIC"
        rows.append({"ROWTIME": T0 + timedelta(milliseconds=250 * i + rng.randrange(200)), "reading": f"r{i}",
                     "Systolic": systolic, "Diastolic": diastolic, "BloodPressureLevel": level})  # fmt: skip
    return rows


def as_table(spark: Any, name: str, rows: list[dict[str, Any]]) -> None:
    columns = ("ROWTIME", "reading", "Systolic", "Diastolic", "BloodPressureLevel")
    spark.createDataFrame([tuple(r[c] for c in columns) for r in rows], SCHEMA).createOrReplaceTempView(name)


def by_reading(rows: list[Any]) -> dict[str, tuple[float, str]]:
    return {r.reading: (r.ANOMALY_SCORE, r.ANOMALY_EXPLANATION) for r in rows}


def test_scores_are_rcfs_and_the_columns_explain_them(spark):
    rows = readings(11, 1500)
    as_table(spark, "bp_table", rows)
    df = spark.sql(EXPLAINED.format(source="bp_table", directionality="true"))
    assert df.columns == ["reading", "Systolic", "Diastolic", "BloodPressureLevel", "ANOMALY_SCORE",
                          "ANOMALY_EXPLANATION"]  # fmt: skip
    got = by_reading(df.collect())
    plain = {r.reading: r.ANOMALY_SCORE for r in spark.sql(PLAIN.format(source="bp_table")).collect()}
    assert {k: s for k, (s, _) in got.items()} == plain
    level = {r["reading"]: r["BloodPressureLevel"] for r in rows}
    values = {r["reading"]: r for r in rows}
    planted = {"HIGH_SYSTOLIC": 0, "LOW_DIASTOLIC": 0}
    for reading, (score, text) in got.items():
        explanation = json.loads(text)
        assert list(explanation) == ["Systolic", "Diastolic"]  # the numeric columns, as the query names them
        for part in explanation.values():
            assert list(part) == ["DIRECTION", "STRENGTH", "ATTRIBUTION_SCORE"]
            assert part["DIRECTION"] in ("HIGH", "LOW")
            assert all(len(part[k].split(".")[1]) == 4 for k in ("STRENGTH", "ATTRIBUTION_SCORE"))
            assert float(part["STRENGTH"]) >= 0 and float(part["ATTRIBUTION_SCORE"]) >= 0
        total = sum(float(p["ATTRIBUTION_SCORE"]) for p in explanation.values())
        assert abs(total - score) <= 0.0002, (reading, score, text)
        if score == 0.0:  # learning: nothing to explain
            assert text == (
                '{"Systolic":{"DIRECTION":"LOW","STRENGTH":"0.0000","ATTRIBUTION_SCORE":"0.0000"},'
                '"Diastolic":{"DIRECTION":"LOW","STRENGTH":"0.0000","ATTRIBUTION_SCORE":"0.0000"}}'
            )
        kind = level[reading]
        if int(reading[1:]) > 300:
            # Against each column's median among the forest's recent points: about 105 and 70 (the
            # normal ranges' middles; a few planted readings move it by less than 3).
            for column, middle in (("Systolic", 105), ("Diastolic", 70)):
                value = values[reading][column]
                assert abs(float(explanation[column]["STRENGTH"]) - abs(value - middle)) <= 3, (reading, text)
                if abs(value - middle) > 3:
                    assert explanation[column]["DIRECTION"] == ("HIGH" if value > middle else "LOW"), (reading, text)
        if kind != "NORMAL":
            column, other, direction = (
                ("Systolic", "Diastolic", "HIGH") if kind == "HIGH_SYSTOLIC" else ("Diastolic", "Systolic", "LOW")
            )
            parts = {c: float(explanation[c]["ATTRIBUTION_SCORE"]) for c in (column, other)}
            assert parts[column] > parts[other], (kind, score, text)
            assert explanation[column]["DIRECTION"] == direction, (kind, text)
            planted[kind] += 1
    assert min(planted.values()) >= 5, planted
    assert sum(1 for s, _ in got.values() if s == 0.0) == 64  # a quarter of the sample of 256


@pytest.mark.parametrize("directionality", ["false", None])
def test_without_directionality_the_attributions_alone(spark, directionality):
    rows = readings(12, 400)
    as_table(spark, "bp_plain", rows)
    sql = EXPLAINED.format(source="bp_plain", directionality=directionality or "")
    if directionality is None:
        sql = sql.replace("    1, -- shingleSize\n    ))", "    1 -- shingleSize\n    ))")
    got = by_reading(spark.sql(sql).collect())
    for score, text in got.values():
        explanation = json.loads(text)
        assert all(list(p) == ["ATTRIBUTION_SCORE"] for p in explanation.values())
        assert abs(sum(float(p["ATTRIBUTION_SCORE"]) for p in explanation.values()) - score) <= 0.0002


def test_a_shingle_explains_each_column_over_its_positions(spark):
    """A shingle of 3: each column's attribution is its part over the three positions, and they
    still sum to the score; a NULL pressure gives a NULL score and a NULL explanation."""
    rows = readings(13, 300)
    rows[120]["Diastolic"] = None
    as_table(spark, "bp_shingle", rows)
    got = by_reading(spark.sql(
        'SELECT STREAM "reading", ANOMALY_SCORE, ANOMALY_EXPLANATION FROM TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION('
        'CURSOR(SELECT STREAM ROWTIME, "Systolic", "Diastolic" * 2 AS "DOUBLED", "reading" FROM bp_shingle), '
        "50, 64, 1000, 3, TRUE))"
    ).collect())  # fmt: skip
    assert got["r120"] == (None, None)
    explained = [(s, json.loads(t)) for s, t in got.values() if s]
    assert len(explained) > 200
    for score, explanation in explained:
        assert list(explanation) == ["Systolic", "DOUBLED"]
        assert abs(sum(float(p["ATTRIBUTION_SCORE"]) for p in explanation.values()) - score) <= 0.0002


def test_a_stream_out_of_order_and_restarted_explains_as_the_table_does(spark):
    rows = readings(14, 600)
    as_table(spark, "bp_want", rows)
    sql = EXPLAINED.format(source="{source}", directionality="TRUE")
    want = by_reading(spark.sql(sql.format(source="bp_want")).collect())
    rng = random.Random(15)
    arrival = shuffled_in_chunks(rows, 30, rng)  # shuffled within 7.5 s, the lateness is 10 s
    far = {"ROWTIME": T0 + timedelta(hours=1), "reading": "far", "Systolic": 100, "Diastolic": 70,
           "BloodPressureLevel": "NORMAL"}  # fmt: skip
    batches = [arrival[i : i + 70] for i in range(0, len(arrival), 70)] + [[far]]
    src = make_stream(spark, "bp_stream", SCHEMA)
    with setting(spark, "spark.overjoin.lateness", "10 seconds"):
        out = run_with_restart(spark, sql.format(source="bp_stream"), src, batches, stop_after=4)
    got = {k: v for k, v in by_reading(out).items() if k != "far"}
    assert got == want


@pytest.mark.parametrize(
    ("args", "bad", "says"),
    [
        (
            ", 100, 256, 100000, 1, 'yes'",
            "'yes'",
            "withDirectionality of RANDOM_CUT_FOREST_WITH_EXPLANATION is TRUE or FALSE",
        ),
        (", 100, 256, 100000, 1, 1", "1)", "withDirectionality"),
        (", 100, 256, 100000, 1, TRUE, 3", "3", "at most 5 parameters"),
        (", 100, 9", "9", "subSampleSize of RANDOM_CUT_FOREST_WITH_EXPLANATION is a whole number from 10 to 1000"),
    ],
)
def test_bad_parameters_are_refused_where_they_are(spark, args, bad, says):
    as_table(spark, "bp_err", readings(16, 5))
    sql = f"SELECT STREAM * FROM TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(CURSOR(SELECT STREAM * FROM bp_err){args}))"
    with pytest.raises(ParseException) as e:
        spark.sql(sql)
    message = str(e.value)
    assert says in message and "OJ001" in message
    assert f"pos {sql.rindex(bad)}" in message
