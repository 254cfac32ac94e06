# `make run` and `make test` work on a fresh machine with only Python 3.11: they create .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN     = $(VENV)/bin
SCENARIO ?= scenarios/his/field_battle.yaml
# The balance gate: every scenario, rerun with GATE_TRIALS trials per variant (and sweep point),
# unless its `check:` section sets `trials` or `detect` (docs/gate.md).
GATE_SCENARIOS ?= $(sort $(wildcard scenarios/*/*.yaml))
GATE_TRIALS ?= 20000
# Extra flags of the pip installs (.ci/run passes --no-compile: see there).
PIP_FLAGS ?=

.DEFAULT_GOAL := check
.PHONY: check run test lint format typecheck unit bench mutants docs readme-figure schema baseline gate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) -e '.[dev,dask]'
	touch $@ $(VENV)/.installed

## run: install and run the default scenario (the Here I Stand field battle)
run: $(VENV)/.installed
	$(BIN)/sim run $(SCENARIO)

## test: install with the dev extras, lint, type-check and run the tests
test: $(VENV)/.dev-installed lint unit

## check (bare `make`): lint + tests
check: test

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check simulator tests bench mutants
	$(BIN)/ruff format --check simulator tests bench mutants
	$(BIN)/mypy simulator

format: $(VENV)/.dev-installed
	$(BIN)/ruff format simulator tests bench mutants
	$(BIN)/ruff check --fix simulator tests bench mutants

# Two worker processes (CI has two cores); a file's tests stay on one worker, so the Numba kernels
# a file needs compile once (and the disk cache serves the other worker and later runs). Files go
# out in collection order (--no-loadscope-reorder), which tests/conftest.py sets: the files that
# compile a whole game's kernel first, their other users last; a worker that meets a function the
# other is compiling waits for it and loads it from the cache (tests/conftest.py).
TEST_WORKERS ?= 2
unit: $(VENV)/.dev-installed
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

## bench: speed figures, each beside its baseline measured in the same run
bench: $(VENV)/.dev-installed
	$(BIN)/python -m bench.run

## mutants: plant each rule mutant of mutants/catalogue.yaml and check the tests kill it (long;
## on demand, not in CI: MUTANTS="ID or procedure ..." picks some)
mutants: $(VENV)/.dev-installed
	$(BIN)/python -m mutants.run $(if $(MUTANTS),--only $(MUTANTS))

## docs: regenerate the reference pages and the figures (docs/figures/, from real runs) and build
## the site (reports/out/site/)
docs: $(VENV)/.dev-installed
	$(BIN)/python -m simulator.docgen
	$(BIN)/python -m simulator.docfigures
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

## readme-figure: redraw the README's committed picture (docs/assets/field-battle.png; commit it)
readme-figure: $(VENV)/.installed
	$(BIN)/python -m simulator.docfigures --readme

## schema: regenerate the committed JSON Schema of scenario files
schema: $(VENV)/.installed
	$(BIN)/sim schema --out reports/schema.json

## baseline: regenerate reports/baseline.json (commit it) with the gate's trial count
baseline: $(VENV)/.installed
	$(BIN)/sim baseline $(GATE_SCENARIOS) --out reports/baseline.json --trials $(GATE_TRIALS)

## gate: the balance regression gate that CI runs against the committed baseline
gate: $(VENV)/.installed
	$(BIN)/sim check $(GATE_SCENARIOS) --baseline reports/baseline.json --trials $(GATE_TRIALS) \
		--junit reports/out/check.xml --markdown reports/out/check.md

clean:
	rm -rf $(VENV) reports/out .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
