"""The Spark tests' set-up: one SparkSession for the whole run, with overjoin loaded from its jar.

pytest-spark creates the session from ``spark_options`` in pytest.ini; this file adds the jar of
the *installed* overjoin (tests run against what ``pip install`` built, not the source tree) and
offers a ``spark`` fixture that fails loudly if the extension did not load: Spark only logs a
warning when a class named in ``spark.sql.extensions`` cannot be loaded.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    from pytest_spark.config import SparkConfigBuilder

    import overjoin

    conf = SparkConfigBuilder.get()
    conf.set("spark.jars", overjoin.jar_path())


@pytest.fixture(scope="session")
def spark(spark_session):  # type: ignore[no-untyped-def]
    """The shared SparkSession, with overjoin's parser checked to be active."""
    import overjoin

    assert overjoin.is_active(spark_session), "overjoin's extension did not load into the test session"
    spark_session.sparkContext.setLogLevel("ERROR")
    return spark_session
