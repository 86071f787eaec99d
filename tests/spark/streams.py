"""Helpers to run overjoin queries as real Structured Streaming queries in tests.

Inputs are fed as JSON files into folders watched by Spark's file source, one file per input per
micro-batch (written under a temporary name, then renamed into the folder, so Spark never reads a
half-written file). ``processAllAvailable`` after each batch makes runs repeatable.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_counter = itertools.count()


@contextmanager
def setting(spark: Any, key: str, value: str | None) -> Iterator[None]:
    """Session setting ``key`` at ``value`` (None: left at its default) for the duration of a block,
    unset afterwards whatever happens in it."""
    if value is not None:
        spark.conf.set(key, value)
    try:
        yield
    finally:
        spark.conf.unset(key)


def _jsonable(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return v


@dataclass
class StreamInput:
    """A streaming temp view over a folder of JSON files."""

    name: str
    schema: str
    folder: str
    watermark: str | None = None  # e.g. "ts, 10 seconds"

    def write_batch(self, rows: Sequence[Mapping[str, Any]]) -> None:
        if not rows:
            return
        n = next(_counter)
        tmp = os.path.join(self.folder, f".tmp-{n}.json")
        with open(tmp, "w") as f:
            for r in rows:
                f.write(json.dumps({k: _jsonable(v) for k, v in r.items()}) + "\n")
        os.rename(tmp, os.path.join(self.folder, f"batch-{n:06d}.json"))


@dataclass
class StreamRun:
    """What a streaming run produced: the new rows of every micro-batch, and its progress."""

    batches: list[list[Any]] = field(default_factory=list)
    progress: list[Any] = field(default_factory=list)  # StreamingQueryProgress: keys or attributes

    @property
    def rows(self) -> list[Any]:
        return [r for b in self.batches for r in b]


def make_stream(spark: Any, name: str, schema: str, watermark: str | None = None) -> StreamInput:
    """Create an empty watched folder and a streaming temp view ``name`` over it."""
    folder = tempfile.mkdtemp(prefix=f"overjoin-{name}-")
    df = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1000).json(folder)
    if watermark:
        col, delay = (s.strip() for s in watermark.split(",", 1))
        df = df.withWatermark(col, delay)
    df.createOrReplaceTempView(name)
    return StreamInput(name, schema, folder, watermark)


def run_stream(
    spark: Any,
    sql: str,
    batches: Iterable[Mapping[str, Sequence[Mapping[str, Any]]]],
    inputs: Mapping[str, StreamInput],
) -> StreamRun:
    """Start ``sql`` as a streaming query, feed ``batches`` one micro-batch at a time, and return
    the rows each batch emitted (memory sink, append mode) and the query's progress reports."""
    df = spark.sql(sql)
    assert df.isStreaming, "the query did not run as a stream"
    qname = f"overjoin_test_{next(_counter)}"
    checkpoint = tempfile.mkdtemp(prefix="overjoin-ckpt-")
    query = (
        df.writeStream.format("memory")
        .queryName(qname)
        .outputMode("append")
        .option("checkpointLocation", checkpoint)
        .start()
    )
    run = StreamRun()
    seen = 0
    try:
        for batch in batches:
            for input_name, rows in batch.items():
                inputs[input_name].write_batch(rows)
            query.processAllAvailable()
            all_rows = spark.table(qname).collect()
            run.batches.append(all_rows[seen:])
            seen = len(all_rows)
        run.progress = list(query.recentProgress)
    finally:
        query.stop()
    return run


def shuffled_in_chunks(rows: Sequence[Any], size: int, rng: Any) -> list[Any]:
    """``rows`` in arrival order out of order: each run of ``size`` consecutive rows shuffled (so a
    row arrives at most ``size - 1`` places from its own, within a lateness that covers them)."""
    out: list[Any] = []
    for start in range(0, len(rows), size):
        chunk = list(rows[start : start + size])
        out += rng.sample(chunk, len(chunk))
    return out


def run_with_restart(
    spark: Any, sql: str, src: StreamInput, batches: Sequence[Sequence[Mapping[str, Any]]], stop_after: int
) -> list[Any]:
    """Run ``sql`` as a stream over ``src``, feeding ``batches`` one micro-batch at a time; after the
    first ``stop_after`` the query is stopped and started again from the same checkpoint. Returns
    the rows of every micro-batch in batch order (``foreachBatch``, each batch's rows kept by its id,
    so that a batch run again after the restart counts once)."""
    checkpoint = tempfile.mkdtemp(prefix="overjoin-restart-")
    by_batch: dict[int, list[Any]] = {}

    def keep(df: Any, batch_id: int) -> None:
        by_batch[batch_id] = df.collect()

    for part in (batches[:stop_after], batches[stop_after:]):
        query = spark.sql(sql).writeStream.foreachBatch(keep).option("checkpointLocation", checkpoint).start()
        try:
            for rows in part:
                src.write_batch(rows)
                query.processAllAvailable()
        finally:
            query.stop()
    return [row for batch_id in sorted(by_batch) for row in by_batch[batch_id]]
