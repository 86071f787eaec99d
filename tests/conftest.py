"""Shared test set-up, pure Python: nothing here needs Spark, so ``pytest tests/unit`` (``make unit``)
runs with sqlglot and pytest alone.

The Spark session lives in ``tests/spark/conftest.py`` (one per run, shared by every Spark test);
``tests/server/conftest.py`` starts ``overjoin server`` processes of its own.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # pytest.ini's `spark_options` belongs to pytest-spark; without it (not installed, or `-p no:spark`
    # as `make unit` runs) pytest would warn on every run that the setting is unknown.
    if not pluginmanager.has_plugin("spark"):
        parser.addini("spark_options", "pytest-spark's SparkSession settings (unused without it)", type="linelist")
