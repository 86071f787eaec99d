"""Late rows are dropped, counted, reachable from Python, and logged; never silent."""

from __future__ import annotations

import datetime as dt
import time

import pytest

import overjoin
from tests.spark.streams import make_stream

T0 = dt.datetime(2024, 6, 1, 8, 0, 0)


def at(s: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=s)


@pytest.fixture
def late_rows_log(spark):
    """Collects what overjoin's late-row listener writes to the driver log (log4j)."""
    jvm = spark._jvm
    core = jvm.org.apache.logging.log4j.core
    name = "io.overjoin.streaming.LateRows"
    core.config.Configurator.setLevel(name, jvm.org.apache.logging.log4j.Level.WARN)
    writer = jvm.java.io.StringWriter()
    layout = core.layout.PatternLayout.createDefaultLayout()
    appender = core.appender.WriterAppender.createAppender(layout, None, writer, "overjoin-test", False, True)
    appender.start()
    logger = jvm.org.apache.logging.log4j.LogManager.getContext(False).getLogger(name)
    logger.addAppender(appender)
    yield writer
    logger.removeAppender(appender)
    appender.stop()


@pytest.mark.streaming
def test_late_rows_are_counted(spark, tmp_path, late_rows_log):
    schema = "rowtime timestamp, k int, id int"
    a = make_stream(spark, "late_a", schema)
    b = make_stream(spark, "late_b", schema)
    df = spark.sql(
        "SELECT STREAM ROWTIME, x.id AS xid, y.id AS yid FROM late_a OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS x "
        "JOIN late_b AS y ON x.k = y.k"
    )
    q = (
        df.writeStream.format("memory")
        .queryName("late_rows_q")
        .outputMode("append")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .start()
    )
    try:
        a.write_batch([{"rowtime": at(100), "k": 1, "id": 1}])
        b.write_batch([{"rowtime": at(100), "k": 1, "id": 2}])
        q.processAllAvailable()
        # Watermark is now 100 s. Rows at 100 s are not late (equal); rows before it are.
        a.write_batch(
            [
                {"rowtime": at(100), "k": 2, "id": 3},
                {"rowtime": at(90), "k": 1, "id": 4},
                {"rowtime": at(99), "k": 1, "id": 5},
            ]
        )
        b.write_batch([{"rowtime": at(100), "k": 2, "id": 6}, {"rowtime": at(50), "k": 1, "id": 7}])
        q.processAllAvailable()
        rows = sorted((r.xid, r.yid) for r in spark.table("late_rows_q").collect())
        assert rows == [(1, 2), (3, 6)]
        deadline = time.time() + 20
        while overjoin.late_rows(q) < 3 and time.time() < deadline:
            time.sleep(0.2)
        assert overjoin.late_rows(q) == 3
        dropped = sum(op["numRowsDroppedByWatermark"] for p in q.recentProgress for op in p["stateOperators"])
        assert dropped == 3
        log = late_rows_log.toString()
        assert "late_rows_q" in log and "dropped 3 late row(s)" in log and "3 dropped so far" in log
    finally:
        q.stop()
