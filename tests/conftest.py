"""Shared test set-up, pure Python: nothing here needs Spark, so ``pytest tests/unit`` (``make unit``)
runs with sqlglot and pytest alone.

The Spark session lives in ``tests/spark/conftest.py`` (one per run, shared by every Spark test);
``tests/server/conftest.py`` starts ``overjoin server`` processes of its own.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # pytest.ini's `spark_options` belongs to pytest-spark; without it (not installed, or `-p no:spark`
    # as `make unit` runs) pytest would warn on every run that the setting is unknown.
    if not pluginmanager.has_plugin("spark"):
        parser.addini("spark_options", "pytest-spark's SparkSession settings (unused without it)", type="linelist")


@pytest.hookimpl(optionalhook=True)  # xdist's hook: `make unit` runs without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``): every test is scheduled on
    its own, except that the tests of one ``tests/server`` module run in one process, in order: they
    share the module's server (one JVM started per module) and build on each other's streams and
    pumps. (xdist's ``xdist_group`` markers would say the same, but xdist 3.8 groups by rewriting
    node ids, which pytest 9.2 no longer allows: the grouping is done here.)"""
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ServerModulesWhole(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0] if nodeid.startswith("tests/server/") else nodeid

    return ServerModulesWhole(config, log)
