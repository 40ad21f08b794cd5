# Two commands on a fresh machine: `make demo` and `make test`.
# Each creates .venv and installs what is missing, then runs its job.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test check slow lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,bench,cluster]'
	@bash scripts/install-chromium.sh || true
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/formhunter demo

lint: $(STAMP)
	$(BIN)/ruff check formhunter classifiers tests scripts
	$(BIN)/mypy

test: $(STAMP) lint
	$(BIN)/pytest

slow: $(STAMP)
	$(BIN)/pytest -m slow

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
