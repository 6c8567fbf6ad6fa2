"""`annabelle`: start the hub, and talk to the running hub with the master token.

annabelle up                                   start the hub in the foreground
annabelle status                               MCP servers, tools, Guardian
annabelle tools list [--mcp filer]             routed tools
annabelle tools call NAME --args '{"path": "notes.md"}'
annabelle skills list|run ID|enable ID|disable ID   scheduled skills: next runs, backoff; run or switch one
annabelle chat [--chat-id cli] [--reset]       chat in the terminal (slash commands work); `echo hi | annabelle chat`
annabelle mcp                                  the hub as a stdio MCP server (Claude Desktop, IDEs)
annabelle doctor                               every diagnostics check with its fix (exit 1 on a critical one)
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from typing import Annotated, Any

import httpx
import typer
from pydantic import Field

from shared.auth import TOKEN_HEADER, read_token
from shared.logs import configure_logging
from shared.settings import CommonSettings, ConfigError, load_settings

log = logging.getLogger(__name__)

app = typer.Typer(
    help="Annabelle: a self-hosted, security-first personal AI assistant.",
    no_args_is_help=True,
    add_completion=False,
)
tools_app = typer.Typer(help="List and call tools through the running hub.", no_args_is_help=True)
app.add_typer(tools_app, name="tools")
skills_app = typer.Typer(help="Scheduled and on-demand skills in the running hub.", no_args_is_help=True)
app.add_typer(skills_app, name="skills")
setup_app = typer.Typer(help="Connect accounts (OAuth) for the MCP servers.", no_args_is_help=True)
app.add_typer(setup_app, name="setup")


class ClientSettings(CommonSettings):
    orchestrator_port: int = Field(default=8010, ge=1, le=65535)
    orchestrator_url: str | None = Field(default=None, description="Hub URL for the CLI and the Thinker.")

    @property
    def hub_url(self) -> str:
        return (self.orchestrator_url or f"http://127.0.0.1:{self.orchestrator_port}").rstrip("/")


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.secho(message, fg=typer.colors.RED, err=True)
    return typer.Exit(code)


def _connection() -> tuple[ClientSettings, str]:
    """The client settings and the master token, or an exit with a sentence saying what is missing."""
    try:
        settings = load_settings(ClientSettings)
    except ConfigError as exc:
        raise _fail(str(exc), 2) from None
    token = read_token(
        settings.annabelle_home, settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    )
    if token is None:
        raise _fail(
            f"No token: set ANNABELLE_TOKEN or start the hub once to create "
            f"{settings.annabelle_home / 'annabelle.token'}."
        )
    return settings, token


def _request(method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    settings, token = _connection()
    url = settings.hub_url + path
    try:
        response = httpx.request(method, url, json=body, headers={TOKEN_HEADER: token}, timeout=130.0)
    except httpx.ConnectError:
        raise _fail(
            f"The hub is not running at {settings.hub_url}; start it with `make run` or `annabelle up`."
        ) from None
    except httpx.TimeoutException:
        raise _fail(f"The hub at {settings.hub_url} did not answer in time.") from None
    if response.status_code == 401:
        raise _fail("The hub rejected the token: ANNABELLE_TOKEN or ANNABELLE_HOME differs from the hub's.")
    if response.status_code >= 400:
        raise _fail(f"HTTP {response.status_code}: {response.json().get('error', response.text)}")
    return response.json()


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def serve() -> None:
    """Run the hub in the foreground until Ctrl-C (what `make run`, `annabelle up` and `python -m orchestrator` do)."""
    from orchestrator.warm_start import start_fork_server

    # First: the fork server the MCPs start from imports their shared modules while the hub imports its own.
    start_fork_server()
    import uvicorn

    from orchestrator.app import create_app
    from orchestrator.settings import OrchestratorSettings
    from shared.agents import AgentsConfigError

    try:
        settings = load_settings(OrchestratorSettings)
    except ConfigError as exc:
        sys.exit(f"annabelle: {exc}")
    configure_logging("orchestrator", settings.logs_dir, settings.log_level)
    logging.getLogger("uvicorn.error").addFilter(_HideStartupTraceback())
    try:
        app = create_app(settings)
    except AgentsConfigError as exc:
        sys.exit(f"annabelle: {exc}")
    log.info(
        "starting hub",
        extra={
            "url": f"http://{settings.annabelle_bind_host}:{settings.orchestrator_port}",
            "home": str(settings.annabelle_home),
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
    if not server.started:
        sys.exit(1)


class _HideStartupTraceback(logging.Filter):
    """A required MCP failing is reported in one sentence by the hub; uvicorn's traceback adds nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "orchestrator.errors.StartupError" not in record.getMessage()


@app.command()
def up() -> None:
    """Start the hub (and its MCP servers) in the foreground."""
    serve()


@app.command()
def status(as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON.")] = False) -> None:
    """Show the running hub: MCP servers, tool count, Guardian."""
    data = _request("GET", "/status")
    if as_json:
        _print_json(data)
        return
    typer.echo(
        f"Hub {data['status']} (version {data['version']}, up {data['uptimeSeconds']:.0f} s), {data['toolCount']} tools"
    )
    for name, mcp in sorted(data["mcps"].items()):
        mark = "up  " if mcp["available"] else "DOWN"
        detail = f"pid {mcp['pid']}, {mcp['toolCount']} tools" if mcp["available"] else (mcp["lastError"] or "")
        typer.echo(f"  [{mark}] {name:<10} {mcp['state']:<10} {detail}")
    for name in data["disabledMcps"]:
        typer.echo(f"  [off ] {name:<10} disabled")
    guardian = data["guardian"]
    typer.echo(
        f"Guardian: {'available' if guardian['available'] else 'UNAVAILABLE'}, fail mode "
        f"{guardian['failMode']}, {guardian['scans']} scans, {guardian['blocked']} blocked"
    )


@tools_app.command("list")
def tools_list(
    mcp: Annotated[str | None, typer.Option(help="Only the tools of this MCP server.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON.")] = False,
) -> None:
    """List the routed tools with their descriptions."""
    data = _request("GET", "/tools/list")
    tools = [t for t in data["tools"] if mcp is None or t["name"].startswith(f"{mcp}_")]
    if as_json:
        _print_json(tools)
        return
    for tool in tools:
        typer.echo(f"{tool['name']:<32} {tool['description'][:100]}")
    typer.echo(f"{len(tools)} tools")


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(help="Exposed tool name, e.g. filer_read_file.")],
    args: Annotated[str, typer.Option("--args", help="Arguments as a JSON object.")] = "{}",
) -> None:
    """Call a tool and print its envelope; exits 1 when the tool call did not succeed."""
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        raise _fail(f"--args is not valid JSON: {exc}", 2) from None
    if not isinstance(arguments, dict):
        raise _fail('--args must be a JSON object, e.g. \'{"path": "notes.md"}\'.', 2)
    envelope = _request("POST", "/tools/call", {"name": name, "arguments": arguments})
    _print_json(envelope)
    if not envelope.get("success"):
        raise typer.Exit(1)


@skills_app.command("list")
def skills_list(as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON.")] = False) -> None:
    """Every agent's skills: enabled, trigger, last run, next run and backoff."""
    from orchestrator.commands.cron import format_skills

    data = _request("GET", "/skills")
    if not data.get("success"):
        raise _fail(str(data.get("error")))
    if as_json:
        _print_json(data["skills"])
        return
    typer.echo(format_skills(data["skills"]))


def _skill_action(skill_id: int, action: str) -> dict[str, Any]:
    data: dict[str, Any] = _request("POST", f"/skills/{skill_id}/{action}")
    if not data.get("success") and "status" not in data:
        raise _fail(str(data.get("error")))
    return data


@skills_app.command("run")
def skills_run(skill_id: Annotated[int, typer.Argument(help="The skill's id (annabelle skills list).")]) -> None:
    """Run a skill now and print how it went; exits 1 when the run failed."""
    data = _skill_action(skill_id, "run")
    typer.echo(f"#{data['skillId']} {data['name']}: {data['status']} — {data['summary']}")
    if not data.get("success"):
        raise typer.Exit(1)


@skills_app.command("enable")
def skills_enable(skill_id: Annotated[int, typer.Argument(help="The skill's id.")]) -> None:
    """Turn a skill on; its failure count starts again from zero."""
    data = _skill_action(skill_id, "enable")
    typer.echo(f"#{data['skillId']} {data['name']}: enabled")


@skills_app.command("disable")
def skills_disable(skill_id: Annotated[int, typer.Argument(help="The skill's id.")]) -> None:
    """Turn a skill off; the scheduler will not turn it back on by itself."""
    data = _skill_action(skill_id, "disable")
    typer.echo(f"#{data['skillId']} {data['name']}: disabled")


@app.command()
def chat(
    chat_id: Annotated[str, typer.Option("--chat-id", help="Conversation id (its own history and session).")] = "cli",
    reset: Annotated[bool, typer.Option("--reset", help="Clear this chat's session first (/clear).")] = False,
) -> None:
    """Chat with Annabelle in the terminal through the running hub; slash commands work, Ctrl-D or /exit quits.

    Piped input is sent line by line (`echo hi | annabelle chat`); the exit code is 1 if an answer failed.
    """
    from orchestrator.chat_cli import ChatClient, ChatError, run_chat

    settings, token = _connection()
    client = ChatClient(settings.hub_url, token, chat_id)
    interactive = sys.stdin.isatty()
    try:
        code = run_chat(client, reset=reset, interactive=interactive, lines=None if interactive else sys.stdin)
    except ChatError as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        code = 130
    finally:
        client.close()
    raise typer.Exit(code)


@app.command()
def doctor() -> None:
    """Run every diagnostics check and say what to fix; exits 1 when anything is critical.

    Asks the running hub (GET /diagnose); when it is down, runs the configuration checks here and says so.
    """
    from orchestrator.doctor import doctor as run_doctor

    try:
        settings = load_settings(ClientSettings)
    except ConfigError as exc:
        raise _fail(str(exc), 2) from None
    secret = settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    report, code = run_doctor(settings.hub_url, read_token(settings.annabelle_home, secret), settings.annabelle_home)
    typer.echo(report)
    raise typer.Exit(code)


@setup_app.command("gmail")
def setup_gmail() -> None:
    """Authorise Gmail and Calendar: opens Google's consent page, saves the token (0600) under $ANNABELLE_HOME/gmail.

    Needs the OAuth client file from Google Cloud (Desktop app) at GMAIL_CREDENTIALS_PATH
    (default $ANNABELLE_HOME/gmail/credentials.json).
    """
    # A separate process: the hub's code never imports an MCP package, it only runs them.
    raise typer.Exit(subprocess.call([sys.executable, "-m", "gmail_mcp.setup"]))


@app.command("mcp")
def mcp_server() -> None:
    """Serve the hub's tools and a `chat` tool over stdio to an MCP client (Claude Desktop, an IDE).

    Needs the hub running (`annabelle up`); reads ORCHESTRATOR_URL and the token like the other commands.
    """
    from orchestrator.hub import annabelle_version
    from orchestrator.mcp_bridge import run_bridge

    try:
        settings = load_settings(ClientSettings)
    except ConfigError as exc:
        raise _fail(str(exc), 2) from None
    # stdout is the MCP stream from here on: logs go to $ANNABELLE_HOME/logs/mcp-bridge.log and stderr only.
    configure_logging("mcp-bridge", settings.logs_dir, settings.log_level)
    secret = settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    run_bridge(settings.hub_url, lambda: read_token(settings.annabelle_home, secret), annabelle_version())


def main() -> None:
    app()
