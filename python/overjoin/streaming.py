"""Helpers for running overjoin queries as streams."""

from __future__ import annotations

from typing import Any

__all__ = ["late_rows"]


def late_rows(query: Any) -> int:
    """How many input rows ``query`` has dropped so far because they were late.

    A row is late when its rowtime is strictly older than the watermark (the smallest, over the
    inputs, of the latest rowtime seen minus the lateness). overjoin counts such rows for every
    streaming query that runs one of its joins, and logs a warning at each micro-batch that drops
    any; this returns the running total for a :class:`pyspark.sql.streaming.StreamingQuery`.

    The count is updated by a query listener just after each micro-batch, so it can lag a running
    query by one batch.
    """
    from pyspark import SparkContext

    sc = SparkContext._active_spark_context
    if sc is None:
        raise RuntimeError("late_rows() needs the SparkContext that runs the query")
    return int(sc._jvm.io.overjoin.streaming.LateRows.total(str(query.id)))
