# Bootstraps its own virtual environment: a fresh machine needs only python3.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck imports pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dsh demo

test: lint typecheck imports pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests typing_tests benchmarks
	$(BIN)/ruff format --check src tests typing_tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy src tests benchmarks
	$(BIN)/mypy typing_tests
	$(BIN)/mypy src/dsh/cli/demo/.claude/hooks

imports: $(STAMP)
	$(BIN)/lint-imports

pytest: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .venv-* build *.egg-info src/*.egg-info
