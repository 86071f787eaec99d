# overjoin's two commands: `make demo` and `make test`. Both start from nothing: they create a
# virtual environment, install overjoin into it (which compiles the JVM extension with the Scala
# compiler that ships in pyspark), and run.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: demo test install jar bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(PY)
	$(PIP) install --quiet ".[test]"

## demo: run the Orders/Shipments stream join live (files arriving in micro-batches).
demo: $(PY)
	$(PIP) install --quiet .
	$(PY) -m overjoin.demo

## test: install with test extras and run the whole suite.
test: install
	$(PY) -m pytest

## jar: compile the JVM extension into python/overjoin/jars/ (needs pyspark in the venv).
jar: $(PY)
	$(PIP) install --quiet pyspark==4.3.0 setuptools
	$(PY) build_backend/overjoin_build.py

## bench: run the benchmarks (not part of the tests); results go to bench/RESULTS.md.
bench: install
	$(PY) bench/bench_validate.py
	$(PY) bench/bench_join.py

clean:
	rm -rf $(VENV) build dist python/overjoin/jars python/*.egg-info .pytest_cache
