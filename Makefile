# Every target installs what it needs: Python packages into a local virtual
# environment (.venv); `test` also installs and builds the starter bots' toolchains
# (see sample_bots/toolchains.mk).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test stress-test lint pytest bench clean venv browser bytecode

all: test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP) bytecode

# Bytecode for arena/ and the Python sample bots, next to their sources, where every bot
# reads it (the sandbox binds arena/ read-only). Why: an editable install compiles nothing,
# and where nobody may write it (PYTHONDONTWRITEBYTECODE, as in this project's CI image; a
# sandboxed bot; a read-only checkout) every Python bot, worker and run compiled arena's
# modules from source at each start: ~5 ms of CPU per bot start, ~0.2 s per run's command
# and fork server. compileall rewrites only what changed since (a stale .pyc is never used:
# Python checks each source's time and size).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q arena sample_bots/python >/dev/null

# Each demo starts afresh (runs/demo holds the last demo only), so it can be run again
# and again and always ends with the standings.
demo: $(STAMP) bytecode sandbox
	rm -rf runs/demo
	$(BIN)/arena run tournaments/demo.yaml --out runs/demo

lint: $(STAMP)
	$(BIN)/ruff check arena tests bench sample_bots/python
	$(BIN)/mypy

# The whole suite: ARENA_TOOLCHAINS=1 includes the starter bots' tests, which a plain
# `pytest` leaves out unless CI=true (tests/conftest.py).
SUITE := ARENA_TOOLCHAINS=1 $(BIN)/pytest

test: lint bytecode bots sandbox browser
	$(SUITE)

# The same suite while CPU hogs keep every core busy (one hog more than cores), as on a
# machine busy with other work: a test that fails here has a race. The hogs are killed
# however the suite ends (pass, failure, Ctrl-C).
stress-test: $(STAMP) bytecode bots sandbox browser
	@hogs=$$(( $$(nproc) + 1 )); pids=""; \
	trap 'kill $$pids 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	for i in $$(seq $$hogs); do (while :; do :; done) & pids="$$pids $$!"; done; \
	echo "stress-test: $$hogs CPU hogs on $$(nproc) cores"; \
	$(SUITE)

pytest: $(STAMP) bytecode
	$(BIN)/pytest

bench: $(STAMP) bytecode
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/rummy.py
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/client_path.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/tournament.py --emulate 14 16
	$(BIN)/python bench/cluster.py --quick
	$(BIN)/python bench/sandbox.py
	$(BIN)/python bench/processes.py --quick
	$(BIN)/python bench/ladder.py
	$(BIN)/python bench/report.py --quick
	$(BIN)/python bench/gamelists.py --quick

# The report and viewer tests run a real browser: Debian's chromium, driven by Playwright
# (pointed at it, so `playwright install` never downloads one). Without root or apt-get it
# is left out, and those tests say so (a failure when CI=true).
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "browser: installing chromium"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; \
	else echo "browser: chromium is missing; the report's browser tests will skip" >&2; fi

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache

include sample_bots/toolchains.mk
