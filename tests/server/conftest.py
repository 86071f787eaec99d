"""Fixtures for the `overjoin server` tests: each module that asks for `server` gets its own."""

from __future__ import annotations

import pytest

from tests.server.serverproc import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    pytest.importorskip("pyhive")
    srv = Server(tmp_path_factory.mktemp("server") / "state").start()
    yield srv
    srv.stop()
