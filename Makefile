# Every target installs what it needs: Python packages into a local virtual
# environment (.venv); `test` also installs and builds the starter bots' toolchains
# (see sample_bots/toolchains.mk).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint pytest bench clean venv

all: test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/arena run tournaments/demo.yaml --out runs/demo

lint: $(STAMP)
	$(BIN)/ruff check arena tests bench sample_bots/python
	$(BIN)/mypy

test: lint bots
	$(BIN)/pytest

pytest: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/rummy.py
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/tournament.py

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache

include sample_bots/toolchains.mk
