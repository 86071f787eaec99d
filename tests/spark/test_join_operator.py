"""overjoin's stream join operator at the edges of eviction (docs/operator.md, docs/semantics.md §8).

A row may be dropped from the join's state only once no row allowed to arrive later can meet it.
These cases put a later row exactly on that edge: lateness 4 s, an input row ``w`` whose life ends
at 5 s (``RANGE INTERVAL '5' SECOND PRECEDING`` from 0 s), a watermark of 4 s (both inputs have
reached 8 s), an empty micro-batch that runs with it, then a row at 5 s of the other input, still
on time, that must meet ``w``. Evicting (or padding) ``w`` one second too early loses the match
(or emits a padded row replay does not have). Every join type, the window on either side.
"""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.generators import SCHEMA, T0, Case, describe
from tests.reference_model import CURRENT_ROW, Row, Window, multiset
from tests.spark.streams import make_stream, run_stream, setting

pytestmark = pytest.mark.streaming

SEC = timedelta(seconds=1)


def _row(i: int, k: int, seconds: int) -> dict:
    return {"id": i, "k": k, "rowtime": T0 + seconds * SEC}


def edge_case(kind: str, window_on: str) -> tuple[Case, list[dict[str, list[dict]]]]:
    """The case and its micro-batches; ``window_on`` ("a" or "b") holds the windowed row ``w``."""
    w = _row(2001, 1, 0)  # life [0 s, 5 s]
    fill_w = _row(2002, 4, 8)  # w's input reaches 8 s ...
    fill1 = _row(1001, 2, 8)  # ... and so does the other: the watermark becomes 8 s - 4 s
    fill2 = _row(1002, 3, 8)  # a batch that runs with that watermark
    late_enough = _row(1003, 1, 5)  # still on time (5 s > 4 s), meets w at 5 s
    windowed = (Window.range(5 * SEC), "RANGE INTERVAL '5' SECOND PRECEDING")
    plain = (CURRENT_ROW, "")
    rows: tuple[tuple[Row, ...], ...]
    if window_on == "b":
        windows, rows = (plain, windowed), ((fill1, fill2, late_enough), (w, fill_w))
        batches = [{"ga": [fill1], "gb": [w, fill_w]}, {"ga": [fill2], "gb": []}, {"ga": [late_enough], "gb": []}]
    else:
        w, fill_w = dict(w, id=1001), dict(fill_w, id=1002)
        fill1, fill2, late_enough = dict(fill1, id=2001), dict(fill2, id=2002), dict(late_enough, id=2003)
        windows, rows = (windowed, plain), ((w, fill_w), (fill1, fill2, late_enough))
        batches = [{"ga": [w, fill_w], "gb": [fill1]}, {"ga": [], "gb": [fill2]}, {"ga": [], "gb": [late_enough]}]
    case = Case(0, tuple(x for x, _ in windows), tuple(t for _, t in windows), rows, (kind,), (("a", "b"),))
    return case, batches


@pytest.mark.parametrize("window_on", ["a", "b"])
@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
def test_a_row_on_the_eviction_edge_still_meets_its_match(spark, kind, window_on):
    case, batches = edge_case(kind, window_on)
    suffix = f"_e{kind}{window_on}"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches + case.flush_batches()]
    with setting(spark, "spark.overjoin.lateness", "4 seconds"):
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    actual = case.without_flush([tuple(r) for r in run.rows])
    expected = case.without_flush(case.expected())
    assert any(None not in t for t in expected), "the edge case lost its match in the model"
    assert multiset(actual) == multiset(expected), describe(case, actual)


def test_state_of_an_unknown_format_is_refused_with_a_clear_error(spark):
    """The join's state is versioned (docs/operator.md): a blob written by a later format fails
    with OJ401 (OVERJOIN_STATE_FORMAT) instead of being read wrongly; formats 1 (overjoin 0.1's,
    without the `held` field), 2 and 3 read."""
    blob_cls = spark._jvm.io.overjoin.execution.join.JoinStateBlob
    old = bytearray(25)
    old[0] = 1
    old[17] = 3  # 3 rows on the left, little-endian, no `held` field in format 1
    assert blob_cls.rows(bytes(old)) == 3
    assert blob_cls.held(bytes(old)) == 2**63 - 1
    current = bytearray(33)
    current[0] = 2
    current[17:25] = (42).to_bytes(8, "little")
    current[25] = 2
    current[29] = 1
    assert blob_cls.rows(bytes(current)) == 3
    assert blob_cls.held(bytes(current)) == 42
    current[0] = 3
    assert blob_cls.rows(bytes(current)) == 3
    assert blob_cls.held(bytes(current)) == 42
    future = bytearray(33)
    future[0] = 4
    with pytest.raises(Exception) as failure:
        blob_cls.due(bytes(future))
    assert "OJ401" in str(failure.value) and "OVERJOIN_STATE_FORMAT" in str(failure.value)
    assert "state of a windowed join in format 4" in str(failure.value)
    assert "formats 1, 2 and 3" in str(failure.value)


LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
FIELDS = {"left": 2, "right": 3}  # an UnsafeRow of n fields: a null-bit word and n words


def _format2_blob(due: int, decided: int, held: int, lefts: list[dict], rights: list[dict]) -> bytes:
    """A join state blob in format 2 as docs/operator.md lays it out (the format overjoin wrote
    before format 3): header, then per row long start, end, rowtime, seq, byte flags, int length,
    the row's bytes."""
    out = bytearray([2])
    for v in (due, decided, held):
        out += v.to_bytes(8, "little", signed=True)
    out += len(lefts).to_bytes(4, "little") + len(rights).to_bytes(4, "little")
    for e in lefts + rights:
        for v in (e["start"], e["end"], e["rowtime"], e["seq"]):
            out += v.to_bytes(8, "little", signed=True)
        out += bytes([e["flags"]]) + len(e["row"]).to_bytes(4, "little") + e["row"]
    return bytes(out)


def _clamp(v: int) -> int:
    return max(LONG_MIN, min(LONG_MAX, v))


def _entries(rng: random.Random, n: int, fields: int) -> list[dict]:
    """Rows of one side as a key holds them: times near each other, as a stream's are, and the
    edges a life can have (open, at the rowtime, far off, the ends of the long range)."""
    out = []
    rowtime = rng.choice([0, 1_700_000_000_000_000, -5_000_000, LONG_MIN + 10, LONG_MAX - 10**9])
    seq = rng.randrange(0, 2**40)
    for _ in range(n):
        rowtime = _clamp(rowtime + rng.choice([0, 1, 999_999, 10**7, -3_000_000, 2**62]))
        start = _clamp(
            rng.choice([rowtime, rowtime - 60_000_000, rowtime + 1, LONG_MIN, rng.randrange(LONG_MIN, LONG_MAX)])
        )
        end = _clamp(rng.choice([rowtime, rowtime + 60_000_000, LONG_MAX, rng.randrange(LONG_MIN, LONG_MAX)]))
        seq = _clamp(seq + rng.choice([1, 2, 2**32, -(2**33)]))
        width = 8 * (1 + fields)
        out.append({
            "start": start, "end": end, "rowtime": rowtime, "seq": seq,
            "flags": rng.randrange(16), "row": bytes(rng.randrange(256) for _ in range(width)),
        })  # fmt: skip
    return out


def _key_rows(spark, blob: bytes):
    """The JVM ``KeyRows`` that JoinStateBlob.decode reads from ``blob``."""
    jvm = spark._jvm
    rows = jvm.io.overjoin.execution.join.KeyRows()
    offset = jvm.org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET
    jvm.io.overjoin.execution.join.JoinStateBlob.decode(blob, offset, FIELDS["left"], FIELDS["right"], rows)
    return rows


def _decoded(spark, blob: bytes) -> tuple[list[tuple], list[tuple]]:
    """What JoinStateBlob.decode reads from ``blob``: each side's rows as plain tuples."""
    rows = _key_rows(spark, blob)

    def side(buf) -> list[tuple]:
        out = []
        for i in range(buf.size()):
            e = buf.apply(i)
            flags = (1 if e.matched() else 0) | (2 if e.endInclusive() else 0) | (4 if e.unmatchable() else 0)
            flags |= 8 if e.orderOnly() else 0
            out.append((e.start(), e.end(), e.rowtime(), e.seq(), flags, bytes(e.row().getBytes())))
        return out

    return side(rows.lefts()), side(rows.rights())


def _rewritten(spark, blob: bytes, due: int, decided: int, held: int) -> bytes:
    """``blob`` decoded and encoded again (as a micro-batch writes a key back): the new blob."""
    jvm = spark._jvm
    value = jvm.org.apache.spark.sql.catalyst.expressions.UnsafeRow(1)
    jvm.io.overjoin.execution.join.JoinStateBlob.encodeRow(_key_rows(spark, blob), due, decided, held, None, value)
    return bytes(value.getBinary(0))


@pytest.mark.parametrize("seed", range(6))
def test_state_written_in_format_2_is_read_and_written_again_in_format_3(spark, seed):
    """A checkpoint written before format 3 goes on (docs/operator.md, "State layout"): a key's
    format 2 blob (built here from the documented layout) decodes to its rows; written again, the
    key's blob is format 3, with the same header and the same rows, field for field, for
    generated rows with every flag and the edges of the long range (open ends, wrapping deltas)."""
    rng = random.Random(seed)
    lefts, rights = (
        _entries(rng, rng.randrange(0, 6), FIELDS["left"]),
        _entries(rng, rng.randrange(0, 6), FIELDS["right"]),
    )
    due, decided, held = rng.randrange(LONG_MIN, LONG_MAX), rng.randrange(LONG_MIN, LONG_MAX), LONG_MAX
    old = _format2_blob(due, decided, held, lefts, rights)
    expected = tuple([(e["start"], e["end"], e["rowtime"], e["seq"], e["flags"], e["row"]) for e in side]
                     for side in (lefts, rights))  # fmt: skip
    assert _decoded(spark, old) == expected

    blob_cls = spark._jvm.io.overjoin.execution.join.JoinStateBlob
    new = _rewritten(spark, old, due, decided, held)
    assert new[0] == 3
    assert (blob_cls.due(new), blob_cls.decided(new), blob_cls.held(new)) == (due, decided, held)
    assert blob_cls.rows(new) == len(lefts) + len(rights)
    assert _decoded(spark, new) == expected


def test_format_3_holds_a_streams_rows_in_fewer_bytes(spark):
    """Rows as a stream's key holds them (a second apart, lives at their rowtime or a minute from
    it, arrivals numbered in order): format 3's row header is at most 15 bytes where format 2's is 37."""
    t0, n = 1_700_000_000_000_000, 20
    lefts: list[dict[str, Any]] = [{"start": t0 + i * 10**6, "end": t0 + i * 10**6, "rowtime": t0 + i * 10**6, "seq": (7 << 32) + i,
              "flags": 0, "row": bytes(24)} for i in range(n)]  # fmt: skip
    rights = [{**e, "end": e["rowtime"] + 60 * 10**6, "flags": 1, "row": bytes(32)} for e in lefts]
    old = _format2_blob(0, 0, LONG_MAX, lefts, rights)
    new = _rewritten(spark, old, 0, 0, LONG_MAX)
    headers = len(new) - 33 - n * (24 + 32)
    assert headers <= 2 * n * 15 + 16, headers  # the first row's varlongs are long
    assert len(old) - len(new) >= 2 * n * 24


def _claim_format(spark, delta: Path, fmt: int) -> int:
    """Rewrites the state delta file ``delta`` (Spark's HDFS-backed store: LZ4-compressed records
    of int key size, key, int value size, value; -1 ends them) so that every value's blob (after
    the value row's two header words) claims format ``fmt``, as a later release's would; drops
    the file's checksums. Returns how many values it changed."""
    jvm = spark._jvm
    codec = jvm.org.apache.spark.io.CompressionCodec.createCodec(spark.sparkContext._conf._jconf, "lz4")
    stream = codec.compressedInputStream(jvm.java.io.FileInputStream(str(delta)))
    data = bytearray(jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    stream.close()
    at, changed = 0, 0
    while (size := int.from_bytes(data[at : at + 4], "big", signed=True)) != -1:
        at += 4 + size
        value_size = int.from_bytes(data[at : at + 4], "big", signed=True)
        if value_size > 16:
            data[at + 4 + 16] = fmt
            changed += 1
        at += 4 + max(value_size, 0)
    out = codec.compressedOutputStream(jvm.java.io.FileOutputStream(str(delta)))
    out.write(bytes(data))
    out.close()
    for sidecar in delta.parent.glob(f"*{delta.name}*"):
        if sidecar != delta:
            sidecar.unlink()
    return changed


def test_state_of_an_unknown_format_names_the_checkpoint(spark, tmp_path):
    """A checkpoint whose join state this release cannot read stops the query with OJ401, naming
    the checkpoint location, the operator, the format and what to do (docs/operator.md, "State
    layout"): here the stored blobs of the first micro-batch are rewritten to claim format 9."""
    inputs = {v: make_stream(spark, v, SCHEMA) for v in ("fmt_a", "fmt_b")}
    checkpoint = str(tmp_path / "checkpoint")
    sql = (
        "SELECT STREAM ROWTIME, a.id AS a_id, b.id AS b_id FROM fmt_a AS a "
        "JOIN fmt_b OVER (RANGE INTERVAL '5' SECOND PRECEDING) AS b ON a.k = b.k"
    )

    def start() -> Any:
        return spark.sql(sql).writeStream.format("noop").option("checkpointLocation", checkpoint).start()

    inputs["fmt_a"].write_batch([_row(1, 1, 0)])
    inputs["fmt_b"].write_batch([_row(2, 1, 0)])
    query = start()
    query.processAllAvailable()
    query.stop()
    deltas = sorted(Path(checkpoint, "state").glob("*/*/1.delta"))
    assert sum(_claim_format(spark, d, 9) for d in deltas) == 1  # one key, one value
    inputs["fmt_a"].write_batch([_row(3, 1, 1)])
    query = start()
    try:
        with pytest.raises(Exception) as failure:
            query.processAllAvailable()
    finally:
        query.stop()
    message = str(failure.value)
    # Spark qualifies the location (file:/...).
    assert "OJ401" in message and f"{checkpoint} holds state of a windowed join in format 9" in message, message
    assert "start the query with a new checkpoint location" in message, message


def test_sliding_state_of_an_unknown_format_names_the_sliding_window(spark):
    """A sliding window's state blob of a format this release does not know fails with OJ401, and
    the message says whose state it is (not a join's)."""
    state = spark._jvm.io.overjoin.execution.sliding.SlidingState
    assert state.decode(bytes([1, 0, 0, 0, 0]), 4, "a sliding window").size() == 0
    with pytest.raises(Exception) as failure:
        state.decode(bytes([9, 0, 0, 0, 0]), 4, "a sliding window")
    message = str(failure.value)
    assert "OJ401" in message and "state of a sliding window in format 9" in message, message
    assert "(it reads formats 1 and 2)" in message, message


@pytest.mark.parametrize("seed", range(4))
def test_sliding_state_in_format_1_is_read_and_written_again_in_format_2(spark, seed):
    """A sliding (or stagger) window's checkpoint written before format 2 goes on: a key's format 1
    blob (built here from the documented layout: long rowtime, long seq, byte emitted, int length,
    the row) decodes to its rows, and encoded again (format 2, smaller for rows near each other)
    it decodes to the same rows, for generated rows with the edges of the long range."""
    rng = random.Random(seed)
    fields = 3
    rows = []
    rowtime, seq = rng.choice([0, 1_700_000_000_000_000, LONG_MIN, LONG_MAX - 2**40]), rng.randrange(2**40)
    for _ in range(rng.randrange(0, 8)):
        rowtime = max(LONG_MIN, min(LONG_MAX, rowtime + rng.choice([0, 1, 10**6, 2**62, -(2**62)])))
        seq += rng.choice([1, 2**32, -5])
        rows.append((rowtime, seq, rng.random() < 0.5, bytes(rng.randrange(256) for _ in range(8 * (1 + fields)))))
    old = bytearray([1]) + len(rows).to_bytes(4, "big")  # a ByteBuffer's order: big-endian
    for t, q, emitted, row in rows:
        old += t.to_bytes(8, "big", signed=True) + q.to_bytes(8, "big", signed=True)
        old += bytes([1 if emitted else 0]) + len(row).to_bytes(4, "big") + row
    state = spark._jvm.io.overjoin.execution.sliding.SlidingState

    def read(blob: bytes) -> list[tuple]:
        held = state.decode(blob, fields, "a sliding window")
        return [(h.rowtime(), h.seq(), h.emitted(), bytes(h.row().getBytes()))
                for h in (held.apply(i) for i in range(held.size()))]  # fmt: skip

    assert read(bytes(old)) == rows
    new = bytes(state.encode(state.decode(bytes(old), fields, "a sliding window")))
    assert new[0] == 2
    assert read(new) == rows
    if len(rows) >= 3 and all(
        abs(b[0] - a[0]) < 2**40 and abs(b[1] - a[1]) < 2**40 for a, b in itertools.pairwise(rows)
    ):
        assert len(new) < len(old)


def test_a_join_reuses_its_generated_code_across_micro_batches(spark):
    """A task hands its kernels (the join's generated projections, condition and output joiners)
    back when it ends and the next micro-batch's task of the same join takes them, although each
    micro-batch's plan gives the columns new expression ids (docs/operator.md, "Where the CPU
    goes"). Without reuse, every task of every batch leaves a set behind."""
    kernels = spark._jvm.io.overjoin.execution.join.JoinKernels
    case, batches = edge_case("LEFT", "b")
    suffix = "_kernels"
    inputs = {v + suffix: make_stream(spark, v + suffix, SCHEMA) for v in case.views}
    fed = [{v + suffix: rows for v, rows in b.items()} for b in batches + case.flush_batches()]
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    before = kernels.idleCount()
    with setting(spark, "spark.overjoin.lateness", "4 seconds"):
        run = run_stream(spark, case.sql_reading([v + suffix for v in case.views]), fed, inputs)
    tasks = partitions * sum(1 for p in run.progress if p["stateOperators"])
    assert tasks >= 4 * partitions, "the case should run several micro-batches of the join"
    assert kernels.idleCount() - before <= partitions, (before, kernels.idleCount(), tasks)
    expected = case.without_flush(case.expected())
    assert multiset(case.without_flush([tuple(r) for r in run.rows])) == multiset(expected)


def test_a_condition_with_a_subquery_sees_each_micro_batchs_result(spark):
    """A scalar subquery in the join condition is evaluated once per micro-batch and its result
    written into the generated condition. Kernels of such a join are never reused by a later
    batch (JoinKernels.Shape.reusable): a later batch's plan compares equal while the table under
    the subquery has changed, and a reused condition would still test the first batch's result."""
    spark.sql("DROP TABLE IF EXISTS ojsq_threshold")
    spark.sql("CREATE TABLE ojsq_threshold (x BIGINT) USING parquet")
    spark.sql("INSERT INTO ojsq_threshold VALUES (0)")
    inputs = {n: make_stream(spark, n, SCHEMA) for n in ("sqa", "sqb")}

    def batches():
        yield {"sqa": [_row(1, 1, 1)], "sqb": [_row(101, 1, 0)]}  # threshold 0: a1 meets b101
        spark.sql("INSERT INTO ojsq_threshold VALUES (150)")
        yield {"sqa": [_row(2, 1, 2)], "sqb": [_row(102, 1, 2)]}  # threshold 150: b101, b102 too small
        yield {"sqa": [_row(3, 1, 3)], "sqb": [_row(200, 1, 3)]}  # only b200 passes

    sql = (
        "SELECT STREAM a.id AS a_id, b.id AS b_id FROM sqa AS a JOIN sqb OVER (RANGE INTERVAL '10' SECOND "
        "PRECEDING) AS b ON a.k = b.k AND b.id > (SELECT max(x) FROM ojsq_threshold)"
    )
    try:
        with setting(spark, "spark.overjoin.lateness", "100 seconds"):
            run = run_stream(spark, sql, batches(), inputs)
    finally:
        spark.sql("DROP TABLE ojsq_threshold")
    assert [sorted(tuple(r) for r in b) for b in run.batches] == [[(1, 101)], [], [(3, 200)]]
