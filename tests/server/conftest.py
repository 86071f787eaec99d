"""Fixtures for the `overjoin server` tests: each module that asks for `server` gets its own."""

from __future__ import annotations

import os

# The clients of the server are test dependencies (pyproject's test extra): missing, these tests
# fail at import rather than skip.
import pyhive.hive  # noqa: F401
import pytest

from tests.server.serverproc import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    srv = Server(tmp_path_factory.mktemp("server") / "state").start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _environment_as_it_was():  # type: ignore[no-untyped-def]
    """A Spark Connect client made in this process (``SparkSession.builder.remote``) switches pyspark
    to Connect mode through the environment; the Spark tests that run after these need the classic
    session back."""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)
