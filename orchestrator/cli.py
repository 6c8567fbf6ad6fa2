"""`annabelle`: start the hub, and talk to the running hub with the master token.

annabelle up                                   start the hub in the foreground
annabelle status                               MCP servers, tools, Guardian
annabelle tools list [--mcp filer]             routed tools
annabelle tools call NAME --args '{"path": "notes.md"}'
annabelle skills list|run ID|enable ID|disable ID   scheduled skills: next runs, backoff; run or switch one
annabelle approvals [approve ID | deny ID]     calls held for your approval
annabelle chat [--chat-id cli] [--reset]       chat in the terminal (slash commands work); `echo hi | annabelle chat`
annabelle mcp                                  the hub as a stdio MCP server (Claude Desktop, IDEs)
annabelle doctor                               every diagnostics check with its fix (exit 1 on a critical one)
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import typer

from shared.auth import read_token
from shared.hub_client import HubClient, HubError, HubRejected
from shared.logs import configure_logging
from shared.settings import BridgeSettings, ConfigError, HubAddressSettings, load_settings
from shared.text import clip

if TYPE_CHECKING:
    pass

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
approvals_app = typer.Typer(
    help="Calls held for your approval (a tainted turn wanted a side effect).", invoke_without_command=True
)
app.add_typer(approvals_app, name="approvals")
setup_app = typer.Typer(help="Connect accounts (OAuth) for the MCP servers.", no_args_is_help=True)
app.add_typer(setup_app, name="setup")


ClientSettings = HubAddressSettings
"""What the CLI reads: where the hub is, and the token (`ANNABELLE_TOKEN` or the file under `ANNABELLE_HOME`)."""


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
    """One request to the running hub through the one hub client; a failure exits with its sentence."""
    settings, token = _connection()

    async def ask() -> Any:
        async with HubClient(settings.hub_url, token) as hub:
            return await hub.request(method, path, body)

    try:
        return anyio.run(ask)
    except HubRejected as exc:
        raise _fail(f"HTTP {exc.status}: {exc}") from None
    except HubError as exc:
        raise _fail(str(exc)) from None


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


@app.command()
def up() -> None:
    """Start the hub (and its MCP servers) in the foreground."""
    from orchestrator.serve import serve

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
        waiting = mcp.get("notStarted")
        mark = "up  " if mcp["available"] else "wait" if waiting else "DOWN"
        if mcp["available"]:
            detail = f"pid {mcp['pid']}, {mcp['toolCount']} tools"
        else:
            detail = f"({waiting}; starts on first use)" if waiting else (mcp["lastError"] or "")
        typer.echo(f"  [{mark}] {name:<10} {mcp['state']:<10} {detail}")
    for name in data["disabledMcps"]:
        typer.echo(f"  [off ] {name:<10} disabled")
    guardian = data["guardian"]
    typer.echo(
        f"Guardian: {'available' if guardian['available'] else 'UNAVAILABLE'}, fail mode "
        f"{guardian['failMode']}, {guardian['scans']} scans, {guardian['blocked']} blocked, "
        f"{guardian.get('marked', 0)} marked"
    )


@tools_app.command("list")
def tools_list(
    mcp: Annotated[str | None, typer.Option(help="Only the tools of this MCP server.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON.")] = False,
) -> None:
    """List the routed tools with their descriptions."""
    data = _request("GET", "/tools/list")
    if mcp is not None and mcp not in data["mcps"]:
        known = ", ".join(sorted(data["mcps"])) or "none"
        raise _fail(f"No MCP server named {mcp!r}; the hub has: {known}.")
    tools = [t for t in data["tools"] if mcp is None or t["name"].startswith(f"{mcp}_")]
    if as_json:
        _print_json(tools)
        return
    for tool in tools:
        typer.echo(f"{tool['name']:<32} {clip(tool['description'], 100)}")
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


@approvals_app.callback()
def approvals_list(
    ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON.")] = False
) -> None:
    """List the calls waiting for your approval (and the latest decided ones)."""
    if ctx.invoked_subcommand is not None:
        return
    records = _request("GET", "/approvals")["approvals"]
    if as_json:
        _print_json(records)
        return
    waiting = [record for record in records if record["status"] == "pending"]
    for record in records[:20]:
        typer.echo(
            f"{record['id']}  {record['status']:<8} {record['agentId']}: {record['tool']}  {clip(record['reason'], 90)}"
        )
    typer.echo(f"{len(waiting)} waiting" + (": annabelle approvals approve|deny ID" if waiting else ""))


def _decide(approval_id: str, decision: str) -> None:
    record = _request("POST", f"/approvals/{approval_id}", {"decision": decision})
    typer.echo(f"{record['id']}: {record['status']} ({record['tool']} for {record['agentId']})")


@approvals_app.command("approve")
def approvals_approve(
    approval_id: Annotated[str, typer.Argument(help="The request's id (annabelle approvals).")],
) -> None:
    """Let a held call run."""
    _decide(approval_id, "approve")


@approvals_app.command("deny")
def approvals_deny(approval_id: Annotated[str, typer.Argument(help="The request's id (annabelle approvals).")]) -> None:
    """Refuse a held call: it never runs."""
    _decide(approval_id, "deny")


@app.command()
def chat(
    chat_id: Annotated[str, typer.Option("--chat-id", help="Conversation id (its own history and session).")] = "cli",
    reset: Annotated[bool, typer.Option("--reset", help="Clear this chat's session first (/clear).")] = False,
) -> None:
    """Chat with Annabelle in the terminal through the running hub; slash commands work, Ctrl-D or /exit quits.

    Piped input is sent line by line (`echo hi | annabelle chat`); the exit code is 1 if an answer failed.
    """
    from orchestrator.chat_cli import ChatError, ChatSession, run_chat

    settings, token = _connection()
    interactive = sys.stdin.isatty()

    async def talk() -> int:
        async with HubClient(settings.hub_url, token) as hub:
            session = ChatSession(hub, chat_id)
            return await run_chat(
                session, reset=reset, interactive=interactive, lines=None if interactive else sys.stdin
            )

    try:
        code = anyio.run(talk)
    except ChatError as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        code = 130
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
        settings = load_settings(BridgeSettings)
    except ConfigError as exc:
        raise _fail(str(exc), 2) from None
    # stdout is the MCP stream from here on: logs go to $ANNABELLE_HOME/logs/mcp-bridge.log and stderr only.
    configure_logging("mcp-bridge", settings.logs_dir, settings.log_level)
    secret = settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    run_bridge(
        settings.hub_url,
        lambda: read_token(settings.annabelle_home, secret),
        annabelle_version(),
        settings.mcp_bridge_poll_seconds,
    )


def main() -> None:
    app()
