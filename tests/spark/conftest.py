"""The Spark tests' set-up: one SparkSession per test process, with overjoin loaded from its jar.

pytest-spark creates the session from ``spark_options`` in pytest.ini; this file adds the jar of
the *installed* overjoin (tests run against what ``pip install`` built, not the source tree) and
offers a ``spark`` fixture that fails loudly if the extension did not load: Spark only logs a
warning when a class named in ``spark.sql.extensions`` cannot be loaded.

``make test`` runs the suite in several processes (pytest-xdist), each with a session of its own;
each gets a warehouse of its own too (managed tables such as ``SALES.BIDS`` would otherwise share
``./spark-warehouse``, and one process's ``DROP`` would delete another's files).
"""

from __future__ import annotations

import shutil
import tempfile

import pytest

_warehouse: str | None = None


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    global _warehouse
    from pytest_spark.config import SparkConfigBuilder

    import overjoin

    conf = SparkConfigBuilder.get()
    conf.set("spark.jars", overjoin.jar_path())
    _warehouse = tempfile.mkdtemp(prefix="overjoin-warehouse-")
    conf.set("spark.sql.warehouse.dir", _warehouse)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _warehouse is not None:
        shutil.rmtree(_warehouse, ignore_errors=True)


@pytest.fixture(scope="session")
def spark(spark_session):  # type: ignore[no-untyped-def]
    """The shared SparkSession, with overjoin's parser checked to be active."""
    import overjoin

    assert overjoin.is_active(spark_session), "overjoin's extension did not load into the test session"
    spark_session.sparkContext.setLogLevel("ERROR")
    return spark_session
