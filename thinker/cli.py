"""The command line of `python -m thinker`: arguments, configuration checks, then uvicorn.

Every configuration mistake (unknown agent, invalid agents.json or environment, no token at all) ends the
process with one sentence on stderr and exit code 2, before anything is started.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

from shared.agents import DEFAULT_AGENT_ID, PARENT_WATCH_VARIABLE, AgentsConfigError
from shared.logs import configure_logging
from shared.settings import ConfigError, load_settings

DESCRIPTION = """\
Run one Annabelle agent: the Thinker that builds context, selects tools, calls the model and
runs tools through the hub. The hub normally starts it; run it by hand to debug an agent.

Configuration (environment or .env):
  AGENTS_CONFIG          agents.json (default: the repository's); a missing file means the agent 'annabelle'
  ORCHESTRATOR_URL       the hub (default http://127.0.0.1:$ORCHESTRATOR_PORT, port 8010)
  ANNABELLE_AGENT_TOKEN  this agent's token from the hub; without it the master token is used
  THINKER_PORT           port when the agent has no `port` in agents.json (default 8006)
  ANNABELLE_BIND_HOST    interface to listen on (default 127.0.0.1)
"""

EXAMPLE = """\
example:
  AGENTS_CONFIG=agents.json ANNABELLE_TOKEN=... python -m thinker --agent-id annabelle
  curl -s localhost:8006/health
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m thinker",
        description=DESCRIPTION,
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent-id",
        default=DEFAULT_AGENT_ID,
        help=f"the agent to run, as in agents.json (default: {DEFAULT_AGENT_ID})",
    )
    parser.add_argument(
        "--port", type=int, default=None, help="override the port (else the agent's, else THINKER_PORT)"
    )
    parser.add_argument("--host", default=None, help="override the interface (else ANNABELLE_BIND_HOST)")
    return parser.parse_args(argv)


def _fail(message: str) -> int:
    sys.stderr.write(f"thinker: {message}\n")
    return 2


def _exit_when_stdin_closes() -> None:
    """Block until stdin reaches end of file, then stop this process.

    The hub starts the Thinker with a pipe on stdin and never writes to it: end of file means the hub is gone
    (even after SIGKILL, when it could not stop its children), and a Thinker left behind would hold its port.
    """
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    logging.getLogger(__name__).warning("the hub that started this Thinker is gone; stopping")
    os.kill(os.getpid(), signal.SIGTERM)
    # uvicorn shuts down gracefully on SIGTERM; should that hang, do not outlive the hub by more than this.
    time.sleep(15)
    os._exit(1)


def watch_parent() -> None:
    if os.environ.get(PARENT_WATCH_VARIABLE, "").strip().lower() == "stdin":
        threading.Thread(target=_exit_when_stdin_closes, name="parent-watch", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # litellm must never download its price list; set before anything can import it.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from thinker.settings import AgentNotFound, ThinkerSettings, load_agent

    try:
        settings = load_settings(ThinkerSettings)
        agent = load_agent(settings, args.agent_id)
    except (ConfigError, AgentsConfigError, AgentNotFound) as exc:
        return _fail(str(exc))
    if not agent.enabled:
        return _fail(f"The agent {agent.agentId!r} is disabled in {settings.agents_config}.")
    if agent.url is not None:
        return _fail(f"The agent {agent.agentId!r} runs elsewhere ({agent.url}); it is not started here.")
    if settings.hub_token() is None:
        return _fail(
            "No token to reach the hub: set ANNABELLE_AGENT_TOKEN (the hub sets it), or ANNABELLE_TOKEN, or start "
            "the hub once so that $ANNABELLE_HOME/annabelle.token exists."
        )
    port = args.port if args.port is not None else agent.port if agent.port is not None else settings.thinker_port
    host = args.host or settings.annabelle_bind_host
    service = "thinker" if agent.agentId == DEFAULT_AGENT_ID else f"thinker-{agent.agentId}"
    configure_logging(service, settings.logs_dir, settings.log_level)
    watch_parent()

    import uvicorn

    from thinker.app import create_app
    from thinker.runtime import ThinkerRuntime, configured_embedder
    from thinker.selection import second_opinion_embedder, selection_embedder

    embedder = configured_embedder(settings)
    runtime = ThinkerRuntime(
        settings,
        agent,
        embedder=embedder,
        selection_embedder=selection_embedder(settings, embedder),
        selection_second=second_opinion_embedder(settings),
    )
    app = create_app(runtime)
    logging.getLogger(__name__).info("thinker starting", extra={"agent": agent.agentId, "host": host, "port": port})
    uvicorn.run(app, host=host, port=port, log_config=None, access_log=False, timeout_graceful_shutdown=5)
    return 0
