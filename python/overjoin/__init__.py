"""overjoin: streaming-SQL windowed joins on Apache Spark.

overjoin adds the join syntax of SQLstream s-Server, Amazon Kinesis Data Analytics SQL, Lenses and
RisingWave (``SELECT STREAM``, ``OVER (RANGE ... PRECEDING)`` windows on join inputs, ``ROWTIME``,
``WITHIN``) to Spark SQL, and rewrites such joins into bounded-state Structured Streaming joins.

Typical use::

    import overjoin
    spark = overjoin.session(**{"spark.master": "local[2]"})
    spark.sql("SELECT STREAM ROWTIME, o.orderId FROM Shipments AS s "
              "JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId")

The pure-Python validator (no JVM) is :func:`overjoin.validate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from overjoin._jar import EXTENSION_CLASS, jar_path
from overjoin.session import configure, is_active, session
from overjoin.streaming import late_rows

__version__ = "0.1.0"

__all__ = [
    "EXTENSION_CLASS",
    "Diagnostic",
    "__version__",
    "configure",
    "is_active",
    "jar_path",
    "late_rows",
    "session",
    "validate",
]

if TYPE_CHECKING:  # pragma: no cover
    from overjoin.validator import Diagnostic, validate


def __getattr__(name: str) -> Any:
    # The validator pulls in sqlglot; import it only when it is asked for, so that
    # `import overjoin` to build a session stays fast.
    if name in ("validate", "Diagnostic"):
        from overjoin import validator

        return getattr(validator, name)
    raise AttributeError(f"module 'overjoin' has no attribute {name!r}")
