# citelens: `make demo` and `make test` create .venv and install the project themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-floors test-spark fuzz lint typecheck pytest bench clean venv versions

# The floors job: its own venv with exactly the lowest supported runtime versions
# (constraints/floors.txt, equal to the `>=` floors in pyproject.toml).
FLOORS_VENV  := .venv-floors
FLOORS_BIN   := $(FLOORS_VENV)/bin
FLOORS_STAMP := $(FLOORS_VENV)/.installed
# The runtime versions a job ran on, printed so that a CI log says which set was tested.
VERSIONS_RE  := '^(polars|polars-runtime-32|pyarrow|duckdb|numpy|rich|zstandard)=='

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,report,zstd]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -m "not spark"

test: versions lint typecheck pytest

# The versions `make test` ran on (the newest releases when .venv was created).
versions: $(STAMP)
	@echo "make test ran on:"; $(BIN)/pip freeze | grep -iE $(VERSIONS_RE)

$(FLOORS_STAMP): pyproject.toml constraints/floors.txt
	rm -rf $(FLOORS_VENV)
	$(PYTHON) -m venv $(FLOORS_VENV)
	$(FLOORS_BIN)/pip install --quiet --upgrade pip
	$(FLOORS_BIN)/pip install --quiet -c constraints/floors.txt -e '.[dev,zstd]'
	touch $(FLOORS_STAMP)

# `make test`'s pytest run on the dependency floors. ruff and mypy stay in `make test` only: ruff
# does not depend on them, and mypy checks against the newest stubs (numpy 1.26's stubs reject the
# bare `np.ndarray` annotations numpy 2 accepts, a typing difference with no runtime effect).
test-floors: $(FLOORS_STAMP)
	@echo "make test-floors runs on:"; $(FLOORS_BIN)/pip freeze | grep -iE $(VERSIONS_RE)
	$(FLOORS_BIN)/pytest -m "not spark"

# Apache Spark tests (real local[2] Spark, Java 17): a separate CI step after `make test`.
test-spark: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,spark]'
	$(BIN)/pytest -m spark tests/spark

# Fuzz every public entry point with 100,000 inputs each (a few hours on two cores); the counts
# are printed by Hypothesis' statistics. `make test` runs the same tests with a few examples.
fuzz: $(STAMP)
	CITELENS_FUZZ_EXAMPLES=100000 $(BIN)/pytest -m fuzz -p no:cacheprovider --hypothesis-show-statistics

demo: $(STAMP)
	bash data-samples/demo.sh $(BIN)

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(FLOORS_VENV) build dist .pytest_cache .mypy_cache .ruff_cache
