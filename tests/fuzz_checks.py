"""What the fuzzer requires of each parser, shared by the tests and ``bench/fuzz.py``.

``jvm_outcome`` and ``py_outcome`` classify what a parser did with one statement:

* ``("ok", "")``: it parsed (the JVM: as Spark's own parser parses it, when it is plain SQL);
* ``("error", condition)``: it refused the statement with an error that carries a condition
  (an overjoin code or Spark's error class), the only acceptable failure; overjoin's internal
  error (OJ900, "this is a bug") is a crash;
* ``("crash", what)``: anything else: an exception of another kind, a JVM error such as
  ``StackOverflowError``, a plain statement parsed differently from Spark, or a validator that
  raised;
* ``("timeout", seconds)``: no answer within the limit.
"""

from __future__ import annotations

import concurrent.futures
import re
import time
from typing import Any

import overjoin

__all__ = ["TIMEOUT", "jvm_outcome", "py_outcome"]

TIMEOUT = 5.0
_IDS = re.compile(r"#\d+")
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="fuzz")


def _timed(fn: Any, timeout: float) -> tuple[str, str]:
    future = _pool.submit(fn)
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        return "timeout", f"{timeout:.0f} s"


def jvm_outcome(spark: Any, sql: str, timeout: float = TIMEOUT) -> tuple[str, str]:
    """Parse ``sql`` with the session's parser and classify the result."""
    from py4j.protocol import Py4JError, Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    parser = spark._jsparkSession.sessionState().sqlParser()
    jvm = spark._jvm

    def run() -> tuple[str, str]:
        try:
            plan = parser.parsePlan(sql)
        except CapturedException as e:
            condition = e.getCondition()
            if condition == "OVERJOIN_INTERNAL_ERROR":  # overjoin's own "this is a bug": a crash
                return "crash", str(e)
            return ("error", condition) if condition else ("crash", f"{type(e).__name__} without a condition: {e}")
        except Py4JJavaError as e:
            java = e.java_exception
            return "crash", f"{java.getClass().getName()}: {java.getMessage()}"
        except Py4JError as e:
            return "crash", f"py4j: {e}"
        if not jvm.io.overjoin.catalyst.parser.OverjoinSqlParser.owns(sql):
            try:
                vanilla = parser.delegate().parsePlan(sql)
            except Exception as e:
                return "crash", f"overjoin parsed plain SQL that Spark refuses: {e}"
            # Expression ids are new at every parse: compare the plans without them.
            if _IDS.sub("#", plan.treeString()) != _IDS.sub("#", vanilla.treeString()):
                return "crash", "overjoin parsed plain SQL differently from Spark"
        return "ok", ""

    return _timed(run, timeout)


def py_outcome(sql: str, timeout: float = TIMEOUT) -> tuple[str, str]:
    """Validate ``sql``; the validator must return diagnostics, never raise."""

    def run() -> tuple[str, str]:
        try:
            found = overjoin.validate(sql)
        except Exception as e:
            return "crash", f"{type(e).__name__}: {e}"
        errors = [d for d in found if d.severity == "error"]
        internal = [d for d in errors if d.code == "OJ900"]
        if internal:
            return "crash", internal[0].message
        return ("error", errors[0].code) if errors else ("ok", "")

    return _timed(run, timeout)


def timed(fn: Any) -> tuple[Any, float]:
    """``fn()`` and the seconds it took."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start
