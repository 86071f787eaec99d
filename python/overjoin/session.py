"""Putting overjoin into a SparkSession: ``configure(builder)`` and ``session(**conf)``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from overjoin._jar import (
    CHECKPOINT_MANAGER_CLASS,
    CHECKPOINT_MANAGER_SETTING,
    EXTENSION_CLASS,
    jar_path,
    named_outside_the_builder,
)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

__all__ = ["configure", "is_active", "session"]

_log = logging.getLogger("overjoin")


def _append(existing: str | None, item: str, sep: str) -> str:
    """Append ``item`` to a ``sep``-separated Spark setting, once, keeping what is there."""
    parts = [p.strip() for p in (existing or "").split(sep) if p.strip()]
    if item not in parts:
        parts.append(item)
    return sep.join(parts)


def configure(builder: Any) -> Any:
    """Add overjoin to a ``SparkSession.Builder`` and return the same builder.

    The extension jar goes on ``spark.jars`` and the extension class on ``spark.sql.extensions``;
    both are *appended* to what the builder already has, so Delta Lake, Iceberg or any other
    extension set before (or after) keeps working. Unless the builder, ``spark-defaults.conf`` or
    ``PYSPARK_SUBMIT_ARGS`` names one, Spark's
    checkpoint file manager (``spark.sql.streaming.checkpointFileManagerClass``) becomes overjoin's,
    which writes local checkpoints without forking a process per file and hands every other file
    system to Spark's own (docs/operator.md, "Checkpoints on the local file system")::

        builder = SparkSession.builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        spark = overjoin.configure(builder).getOrCreate()

    Raises:
        TypeError: ``builder`` is not a ``pyspark.sql.SparkSession.Builder``.
    """
    from pyspark.sql import SparkSession

    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(
            f"overjoin.configure() takes a SparkSession.Builder (SparkSession.builder), not {type(builder).__name__}"
        )
    options: dict[str, str] = getattr(builder, "_options", {})
    jar = jar_path()
    builder.config("spark.jars", _append(options.get("spark.jars"), jar, ","))
    builder.config("spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS, ","))
    if CHECKPOINT_MANAGER_SETTING not in options and not named_outside_the_builder(CHECKPOINT_MANAGER_SETTING):
        builder.config(CHECKPOINT_MANAGER_SETTING, CHECKPOINT_MANAGER_CLASS)
    return builder


def session(**conf: Any) -> SparkSession:
    """Return a SparkSession with overjoin active, creating it if needed.

    Keyword arguments are Spark settings (use ``**{"spark.master": "local[2]"}`` for dotted names).
    Without ``spark.master`` the session runs locally on every core.

    Raises:
        RuntimeError: a session already existed without overjoin (Spark reads
            ``spark.sql.extensions`` only when a session starts), or the extension failed to load.
    """
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    conf.setdefault("spark.master", "local[*]")
    for key, value in conf.items():
        builder = builder.config(key, str(value))
    spark = configure(builder).getOrCreate()
    if not is_active(spark):
        raise RuntimeError(
            "overjoin is not active in this SparkSession: a session without it was already running "
            "(stop it with spark.stop() first), or the extension class could not load (see the "
            "driver log for a WARN about spark.sql.extensions)."
        )
    _log.info("overjoin %s active in Spark %s", _version(), spark.version)
    return spark


def is_active(spark: SparkSession) -> bool:
    """True when overjoin's parser is part of ``spark``'s SQL parser chain.

    Spark only logs a warning when an extension named in ``spark.sql.extensions`` fails to load,
    so tests and tools should check this rather than assume it.
    """
    try:
        jvm = spark._jvm
        if jvm is None:  # a Spark Connect session: no JVM here to ask
            return False
        parser = spark._jsparkSession.sessionState().sqlParser()
        return bool(jvm.io.overjoin.catalyst.parser.OverjoinSqlParser.isInChain(parser))
    except Exception:
        return False


def _version() -> str:
    from overjoin import __version__

    return __version__
