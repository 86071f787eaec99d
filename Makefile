# overjoin's two commands: `make demo` and `make test`. Both start from nothing: they create a
# virtual environment, install overjoin into it (which compiles the JVM extension with the Scala
# compiler that ships in pyspark), and run. `make check` (lint, types, pure-Python unit tests) needs
# no Spark and no build. `make help` lists every target.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# `make test`'s test processes (pytest-xdist); WORKERS=0 runs the suite in one process.
WORKERS ?= 2
SOURCES := python tests bench build_backend

.PHONY: help demo test soak install jar bench dev unit lint fmt types check clean

## help: list the targets.
help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -E 's/^## ([a-z]+): /  \1\t/' | expand -t 10

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

## install: install overjoin with its test extras into .venv (builds the JVM extension).
install: $(PY)
	$(PIP) install --quiet ".[test]"

## demo: run the Orders/Shipments stream join live (files arriving in micro-batches).
demo: $(PY)
	$(PIP) install --quiet .
	$(PY) -m overjoin.demo

## test: install with test extras and run the whole suite, in WORKERS=2 processes (the README's test command).
test: install
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup --durations=25

## soak: the seeded tests (differential, ROWS, restart, fuzz, ASOF oracle) with 8x their seeds; hours, not in CI.
soak: install
	OVERJOIN_SOAK=8 $(PY) -m pytest -q tests/spark/test_differential.py tests/spark/test_rows_windows.py \
		tests/spark/test_rows_streams.py tests/spark/test_rows_chains.py tests/spark/test_restart.py \
		tests/spark/test_fuzz.py tests/unit/test_fuzz_validator.py tests/oracles

## jar: compile the JVM extension into python/overjoin/jars/ (needs pyspark in the venv).
jar: $(PY)
	$(PIP) install --quiet pyspark==4.3.0 setuptools
	$(PY) build_backend/overjoin_build.py

## bench: run the benchmarks (not part of the tests); results go to bench/RESULTS.md.
bench: install
	$(PY) bench/bench_validate.py
	$(PY) bench/bench_join.py

## dev: install the development tools (ruff, mypy, pytest, sqlglot) without building anything.
dev: $(PY)
	$(PIP) install --quiet 'tomli; python_version < "3.11"'
	$(PY) build_backend/requirements_of.py dev > $(VENV)/dev-requirements.txt
	$(PIP) install --quiet -r $(VENV)/dev-requirements.txt

## unit: the pure-Python unit tests, from the source tree, with Spark's pytest plugin off.
unit: dev
	PYTHONPATH=python $(PY) -m pytest tests/unit -q -p no:spark -p no:cacheprovider

## lint: ruff's lint rules and format check.
lint: dev
	$(PY) -m ruff check $(SOURCES)
	$(PY) -m ruff format --check $(SOURCES)

## fmt: format the Python code and apply ruff's safe fixes.
fmt: dev
	$(PY) -m ruff format $(SOURCES)
	$(PY) -m ruff check --fix $(SOURCES)

## types: mypy: the package strictly, tests, bench and build_backend as annotated (pyproject.toml).
types: dev
	PYTHONPATH=python $(PY) -m mypy

## check: lint, types and unit tests: what CI runs before the full suite.
check: lint types unit

## clean: remove the virtual environment, build outputs and tool caches.
clean:
	rm -rf $(VENV) build dist python/overjoin/jars python/*.egg-info .pytest_cache .mypy_cache .ruff_cache
