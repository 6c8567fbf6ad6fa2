"""Run the hub in the foreground: `python -m orchestrator`, `annabelle up`, `make run`.

The order is the point: settings and ports are checked first (one sentence and exit 1, before anything is
spawned); then the first-party MCPs are forked from this interpreter with only their shared modules imported
(`prestart`), so they start while the hub imports its web stack and the rest of the app, which come last.
Only the standard library is imported at the top of this module.
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.prestart import Prestarted
    from orchestrator.settings import OrchestratorSettings

log = logging.getLogger(__name__)


def serve() -> None:
    """Run the hub until Ctrl-C; exit 1 with one sentence when it cannot start."""
    from orchestrator.settings import OrchestratorSettings
    from shared.settings import ConfigError, load_settings

    try:
        settings = load_settings(OrchestratorSettings)
    except ConfigError as exc:
        sys.exit(f"annabelle: {exc}")
    problem = port_problem(settings)
    if problem:
        sys.exit(f"annabelle: {problem}")
    prestarted = prestart_mcps(settings)
    try:
        _run(settings, prestarted)
    finally:
        prestarted.discard()


def prestart_mcps(settings: OrchestratorSettings) -> Prestarted:
    """Fork the first-party MCPs the hub will run, with only the modules they share imported (see `prestart`)."""
    from orchestrator.discovery import discover
    from orchestrator.mcp_commands import child_command
    from orchestrator.on_demand import leave_for_first_use
    from orchestrator.prestart import Prestarted
    from orchestrator.warm_start import preload_here
    from shared.settings import process_environment

    preload_here()
    environ = process_environment()
    # Problems and disabled MCPs are left for the hub to report: it discovers again, with logging set up.
    found = discover(settings.annabelle_mcps_root, environ).specs
    # An MCP the hub will leave for first use (it cannot work before a setting appears) is not forked either.
    specs = [spec for spec in found if leave_for_first_use(spec, environ, settings.annabelle_home) is None]
    prestarted = Prestarted()
    prestarted.fork([child_command(spec, settings, environ) for spec in specs])
    return prestarted


def _run(settings: OrchestratorSettings, prestarted: Prestarted) -> None:
    import uvicorn

    from orchestrator.app import create_app
    from shared.agents import AgentsConfigError
    from shared.logs import configure_logging

    configure_logging("orchestrator", settings.logs_dir, settings.log_level)
    try:
        app = create_app(settings, prestarted=prestarted)
    except AgentsConfigError as exc:
        sys.exit(f"annabelle: {exc}")
    log.info(
        "starting hub",
        extra={
            "url": f"http://{settings.annabelle_bind_host}:{settings.orchestrator_port}",
            "home": str(settings.annabelle_home),
            "prestarted_mcps": len(prestarted.pids),
        },
    )
    config = uvicorn.Config(
        app,
        host=settings.annabelle_bind_host,
        port=settings.orchestrator_port,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        # uvicorn re-raises Ctrl-C after its graceful shutdown; the shutdown is done, exit quietly.
        return
    if not server.started or app.state.startup_failure:
        sys.exit(1)


def port_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def port_problem(settings: OrchestratorSettings) -> str | None:
    """One sentence when a port the hub needs is taken: its own, or a Thinker's it will start (checked before
    anything is spawned, so the sentence comes first, not a raw `Errno 98` after every MCP has started)."""
    host = settings.annabelle_bind_host
    if not port_free(host, settings.orchestrator_port):
        return (
            f"port {settings.orchestrator_port} on {host} is in use (another hub?); stop that process or set "
            "ORCHESTRATOR_PORT to a free port."
        )
    from shared.agents import AgentsConfigError, fixed_thinker_ports, load_agents_config

    try:
        config = load_agents_config(settings.agents_config)
    except AgentsConfigError:
        return None  # create_app reports agents.json's problems with their fields
    for agent_id, (port, variable) in fixed_thinker_ports(config, settings.thinker_port).items():
        if port == settings.orchestrator_port:
            return f"the agent {agent_id!r} would listen on the hub's own port {port}; change {variable}."
        if not port_free("127.0.0.1", port):
            return f"port {port} for the agent {agent_id!r} is in use; stop that process or change {variable}."
    return None
