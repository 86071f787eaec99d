"""Shared test set-up, pure Python: nothing here needs Spark, so ``pytest tests/unit`` (``make unit``)
runs with sqlglot and pytest alone.

The Spark session lives in ``tests/spark/conftest.py`` (one per run, shared by every Spark test);
``tests/server/conftest.py`` starts ``overjoin server`` processes of its own.
"""
