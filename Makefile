# Bootstraps its own virtual environment: a fresh machine needs only python3.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: bytecode demo test lint typecheck imports pytest bench bench-tools fuzz clean acp-node-client mcp-node-server

# UV=path/to/uv makes the venv with uv instead (seeded with pip, which tests/packaging runs):
# the same packages, several times faster; .ci/run passes the main venv's uv (a dev extra)
# for the venvs of the other CPythons.
UV ?=

$(STAMP): pyproject.toml
ifeq ($(strip $(UV)),)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
else
	$(UV) venv --quiet --seed --allow-existing --python $(PYTHON) $(VENV)
	$(UV) pip install --quiet --python $(BIN)/python -e '.[dev]'
endif
	$(MAKE) bytecode
	touch $(STAMP)

# An editable install leaves src/ uncompiled, and with PYTHONDONTWRITEBYTECODE set (as some
# shells and CI images do) every `dsh` would compile each module again (~0.3 s CPU a run).
# compileall writes the bytecode whatever that variable says; Python still reads it.
# (A wheel install compiles on install: pip's default.)
bytecode:
	$(BIN)/python -m compileall -q src

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

# The independent ACP clients of tests/acp (the TypeScript SDK, acpx), installed into that
# directory only from its lock file; without npm (or when the install fails) their tests are
# skipped, saying why. `npm install`, not `npm ci`: npm 11's ci refuses this lock (an optional
# platform package of acpx's @openclaw/fs-safe it calls missing), where install takes it as is.
ACP_NODE := tests/acp/node
ACP_NODE_STAMP := $(ACP_NODE)/node_modules/.installed-stamp

$(ACP_NODE_STAMP): $(ACP_NODE)/package.json $(ACP_NODE)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (npm install --prefix $(ACP_NODE) --no-audit --no-fund --silent && touch $@) \
	    || echo "npm install failed: the independent ACP client test will be skipped"; \
	else echo "npm not found: the independent ACP client test will be skipped"; fi

acp-node-client: $(ACP_NODE_STAMP)

# The reference MCP server (@modelcontextprotocol/server-everything) the MCP tests and the
# claude-next MCP replays start, installed into that directory only; without npm (or when
# the install fails) those tests are skipped, saying why. CI machines have node.
MCP_NODE := tests/mcp/node
MCP_NODE_STAMP := $(MCP_NODE)/node_modules/.installed-stamp

$(MCP_NODE_STAMP): $(MCP_NODE)/package.json $(MCP_NODE)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (npm ci --prefix $(MCP_NODE) --no-audit --no-fund --silent && touch $@) \
	    || echo "npm ci failed: the server-everything MCP tests will be skipped"; \
	else echo "npm not found: the server-everything MCP tests will be skipped"; fi

mcp-node-server: $(MCP_NODE_STAMP)

# The suite runs on every core (pytest-xdist; worksteal hands a slow test's neighbours to an
# idle worker); PYTEST_WORKERS=0 runs it in one process, as a plain `pytest` does.
PYTEST_WORKERS ?= auto
# PYTEST_PATHS: what to run (default: the whole suite, as pyproject's testpaths say).
PYTEST_PATHS ?=
# PYTEST_ARGS: more pytest options (CI's other Pythons pass -m "not once").
PYTEST_ARGS ?=
pytest: $(STAMP) $(ACP_NODE_STAMP) $(MCP_NODE_STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS) $(PYTEST_PATHS)

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# The long fuzz run of every hostile-input property (plugin manifests, Claude settings,
# Codex hooks.json/config.toml, trust records), FUZZ_EXAMPLES each, unhandled exceptions
# counted (must be 0); niced, and never part of `make test` or CI (hours at 100,000).
# FUZZ_MINUTES=M stops each property after M minutes and reports what ran.
FUZZ_EXAMPLES ?= 100000
fuzz: $(STAMP)
	CI=1 nice -n 19 $(BIN)/python benchmarks/fuzz_all.py $(FUZZ_EXAMPLES) \
	  $(if $(FUZZ_MINUTES),--minutes $(FUZZ_MINUTES))

# The real Claude Code and Codex that benchmarks/bench_side_by_side.py measures dsh against,
# installed with npm into .bench-tools/ only (gitignored); never part of `make test` or CI.
BENCH_TOOLS := .bench-tools
bench-tools:
	mkdir -p $(BENCH_TOOLS)
	npm install --prefix $(BENCH_TOOLS) --no-audit --no-fund \
	  @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0

clean:
	rm -rf $(VENV) .venv-* build *.egg-info src/*.egg-info $(ACP_NODE)/node_modules $(MCP_NODE)/node_modules
