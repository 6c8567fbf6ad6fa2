# The two commands a fresh clone needs: `make run` and `make test`.
# Both create the virtual environment and install on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run test lint bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing Annabelle and its dependencies into $(VENV) (first run takes about a minute)..."
	@$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m orchestrator

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(PY) benchmarks/tool_call.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
