# citelens: `make demo` and `make test` create .venv and install the project themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-spark fuzz lint typecheck pytest bench clean venv

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -m "not spark"

test: lint typecheck pytest

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
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
