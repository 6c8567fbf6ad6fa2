"""The CodeExec MCP server (mcpName `codexec`): the original's 13 tools for running code in a sandbox.

The tools are thin: each hands its arguments to `service.CodeExec`, which the lifespan builds from the settings
(`CODEXEC_*`, `ANNABELLE_HOME`) after proving that a sandbox starts on this host. When it cannot, the server
still starts: the running tools answer with what to install or set, and the script library works. The
lifespan also closes idle sessions and, at shutdown, every session.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from pydantic import Field

from codexec_mcp import models
from codexec_mcp.host import SandboxUnavailable, build_host
from codexec_mcp.languages import Language, PackageLanguage, SessionLanguage
from codexec_mcp.service import CodeExec
from codexec_mcp.settings import CodexecSettings
from shared.mcp_tools import (
    LOCAL_WRITE,
    READ_ONLY,
    REMOTE_OVERWRITE,
    EnvelopeServer,
    ServerState,
    configured_lifespan,
    effects,
    envelope_tool,
)

log = logging.getLogger(__name__)

CodexecState = ServerState[CodeExec]
MAX_CODE_CHARS = 500_000


async def _reap_idle(service: CodeExec) -> None:
    interval = min(30.0, service.sessions.idle_seconds / 4)
    while True:
        await anyio.sleep(interval)
        await service.sessions.reap_idle()


@configured_lifespan(CodexecSettings, name="codexec", display="CodeExec")
async def lifespan(settings: CodexecSettings) -> AsyncIterator[CodexecState]:
    try:
        host = await anyio.to_thread.run_sync(build_host, settings)
        problem = None
    except (SandboxUnavailable, OSError) as exc:
        host, problem = None, str(exc)
        log.error("codexec: CODE WILL NOT RUN: %s", problem)
    service = CodeExec(settings, host, problem)
    if host is not None:
        log.info(
            "codexec ready",
            extra={
                "isolation": host.plan.isolation,
                "network": host.plan.network,
                "sandbox": str(host.plan.sandbox_root),
                "interpreters": dict(host.interpreters.paths),
            },
        )
    async with anyio.create_task_group() as group:
        group.start_soon(_reap_idle, service)
        try:
            yield CodexecState(service)
        finally:
            group.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                await service.sessions.close_all()


server: EnvelopeServer[CodexecState] = EnvelopeServer(
    "codexec",
    instructions=(
        "Runs Python, Node.js and bash code in a sandbox: its own folder (seen as /sandbox), no network unless "
        "the owner enabled it, time, memory and output limits. Use execute_code for one-off runs, sessions for "
        "state that must persist between calls, and the script library for code worth keeping."
    ),
    lifespan=lifespan,
)

CodexecContext = Context[CodexecState]

Code = Annotated[str, Field(min_length=1, max_length=MAX_CODE_CHARS, description="The code to run.")]
CodeLanguage = Annotated[Language, Field(description="'python', 'node' or 'bash'.")]
TimeoutMs = Annotated[
    int | None,
    Field(
        ge=1,
        description="Wall-time limit in milliseconds (default 30000; larger values are cut to the maximum, 300000).",
    ),
]
WorkingDir = Annotated[
    str | None,
    Field(
        max_length=600,
        description=(
            "A folder inside the sandbox to run in, e.g. 'project-a' (created if missing; the code sees it as "
            "/sandbox/project-a). Default: a fresh folder for this run."
        ),
    ),
]
ScriptName = Annotated[str, Field(min_length=1, max_length=200, description="The script's name (stored as a slug).")]
ScriptDescription = Annotated[str, Field(min_length=1, max_length=2000, description="What the script does.")]
Args = Annotated[
    list[str] | None,
    Field(max_length=100, description="Arguments for the script: sys.argv[1:], process.argv.slice(2) or $1…"),
]
Tags = Annotated[
    list[str] | None, Field(max_length=50, description="Tags for finding it later, e.g. ['csv', 'report'].")
]
Packages = Annotated[
    list[str] | None, Field(max_length=50, description="Packages it needs, recorded for the reader (not installed).")
]

RUNS_CODE = REMOTE_OVERWRITE
"""Running code can change or delete what it finds in its working folder and, when the owner enabled the
network, reach beyond this machine."""


@envelope_tool(server, annotations=RUNS_CODE)
async def execute_code(
    language: CodeLanguage,
    code: Code,
    ctx: CodexecContext,
    timeout_ms: TimeoutMs = None,
    working_dir: WorkingDir = None,
) -> models.ExecutionResult:
    """Run code once in a fresh sandboxed process (no state from earlier calls).

    Returns stdout, stderr (each cut to its first and last 4,000 characters when long), exit_code, duration_ms,
    timed_out, and the files the run created, changed or deleted in its folder.

    For requests like: calculate this, run this Python snippet, work out the average of these numbers, try this
    bash command.
    """
    return await server.service(ctx).execute_code(language, code, timeout_ms, working_dir)


@envelope_tool(server, annotations=LOCAL_WRITE)
async def start_session(
    language: Annotated[SessionLanguage, Field(description="'python' or 'node'.")],
    ctx: CodexecContext,
    name: Annotated[str | None, Field(max_length=100, description="A readable name for the session.")] = None,
    working_dir: WorkingDir = None,
) -> models.SessionStarted:
    """Start a persistent REPL session: variables, imports and data survive between send_to_session calls.

    At most 5 sessions run at once; a session unused for 15 minutes is closed.

    For requests like: start a Python session, open a Node REPL, keep these variables around for the next step.
    """
    return await server.service(ctx).start_session(language, name, working_dir)


@envelope_tool(server, annotations=RUNS_CODE)
async def send_to_session(
    code: Code,
    ctx: CodexecContext,
    session_id: Annotated[
        str | None, Field(max_length=100, description="The session from start_session; leave out to start one.")
    ] = None,
    language: Annotated[
        SessionLanguage | None, Field(description="'python' or 'node': needed when no session_id is given.")
    ] = None,
    timeout_ms: TimeoutMs = None,
) -> models.SessionExecResult:
    """Run code in a session; the value of a final expression is printed, as at an interactive prompt.

    Without session_id a new session of `language` is started (its id is in the result). Code that outlives
    its timeout is interrupted and the session keeps its state.

    For requests like: continue in my Python session, run the next step on that data, what does the table look
    like now.
    """
    return await server.service(ctx).send_to_session(session_id, language, code, timeout_ms)


@envelope_tool(server, annotations=effects(read_only=False, destructive=True, idempotent=True))
async def close_session(
    session_id: Annotated[str, Field(min_length=1, max_length=100, description="The session to close.")],
    ctx: CodexecContext,
) -> models.SessionClosed:
    """Close a session and stop its process; its variables are gone, files it wrote stay.

    For requests like: close the session, stop the REPL, I'm done with that Python session.
    """
    return await server.service(ctx).close_session(session_id)


@envelope_tool(server, annotations=READ_ONLY)
def list_sessions(ctx: CodexecContext) -> models.SessionList:
    """List the running sessions with language, age, last use, memory, execution count and installed packages.

    For requests like: which sessions are running, list my REPLs, how much memory does the session use.
    """
    return server.service(ctx).list_sessions()


@envelope_tool(server, annotations=effects(read_only=False, idempotent=True, open_world=True))
async def install_package(
    language: Annotated[PackageLanguage, Field(description="'python' (pip) or 'node' (npm).")],
    package: Annotated[
        str, Field(min_length=1, max_length=200, description="A name with an optional version: 'pandas', 'lodash@4'.")
    ],
    ctx: CodexecContext,
    session_id: Annotated[
        str | None, Field(max_length=100, description="Record the install on this session (same language).")
    ] = None,
) -> models.PackageInstalled:
    """Install a package for sandboxed code (into the sandbox, never the system); every later run and session
    can import it.

    Needs the network, which the sandbox only has when the owner set CODEXEC_NETWORK=true (Python can also
    install from a local wheel folder).

    For requests like: install pandas, pip install requests, add the lodash package.
    """
    return await server.service(ctx).install_package(language, package, session_id)


@envelope_tool(server, annotations=effects(read_only=False, destructive=True, idempotent=True))
def save_script(
    name: ScriptName,
    description: ScriptDescription,
    language: CodeLanguage,
    code: Code,
    ctx: CodexecContext,
    tags: Tags = None,
    packages: Packages = None,
) -> models.ScriptSaved:
    """Save a reusable script under a name (an existing script of that name is replaced).

    For requests like: save this code as a script, keep this snippet for later, store it as my invoice script.
    """
    return server.service(ctx).save_script(name, description, language, code, tags or [], packages or [])


@envelope_tool(server, annotations=READ_ONLY)
def get_script(name: ScriptName, ctx: CodexecContext) -> models.ScriptContent:
    """Show a saved script's code and metadata (description, tags, runs).

    For requests like: show me the script, what does my cleanup script do, open the saved code.
    """
    return server.service(ctx).get_script(name)


@envelope_tool(server, annotations=READ_ONLY)
def list_scripts(
    ctx: CodexecContext,
    language: Annotated[Language | None, Field(description="Only scripts in this language.")] = None,
    tag: Annotated[str | None, Field(max_length=100, description="Only scripts with this tag.")] = None,
) -> models.ScriptList:
    """List the saved scripts, optionally of one language or tag.

    For requests like: what scripts do I have, list my saved Python scripts, scripts tagged report.
    """
    return server.service(ctx).list_scripts(language, tag)


@envelope_tool(server, annotations=READ_ONLY)
def search_scripts(
    query: Annotated[
        str,
        Field(min_length=1, max_length=200, description="Words that must all appear in the name, description or tags."),
    ],
    ctx: CodexecContext,
) -> models.ScriptList:
    """Find saved scripts by keywords in their name, description and tags.

    For requests like: find my script that parses CSV files, do I have a script for invoices, search my saved code.
    """
    return server.service(ctx).search_scripts(query)


@envelope_tool(server, annotations=effects(read_only=False, destructive=True, idempotent=True))
def delete_script(name: ScriptName, ctx: CodexecContext) -> models.ScriptDeleted:
    """Delete a saved script.

    For requests like: delete that script, remove the old script, get rid of the saved code.
    """
    return server.service(ctx).delete_script(name)


@envelope_tool(server, annotations=RUNS_CODE)
async def run_script(
    name: ScriptName,
    ctx: CodexecContext,
    args: Args = None,
    timeout_ms: TimeoutMs = None,
    working_dir: WorkingDir = None,
) -> models.ScriptRunResult:
    """Run a saved script in the sandbox, like execute_code; its run count and last result are recorded.

    For requests like: run my backup script, execute the saved report script with these arguments.
    """
    return await server.service(ctx).run_script(name, args or [], timeout_ms, working_dir)


@envelope_tool(server, annotations=RUNS_CODE)
async def save_and_run_script(
    name: ScriptName,
    description: ScriptDescription,
    language: CodeLanguage,
    code: Code,
    ctx: CodexecContext,
    tags: Tags = None,
    packages: Packages = None,
    args: Args = None,
    timeout_ms: TimeoutMs = None,
    working_dir: WorkingDir = None,
) -> models.ScriptSavedAndRun:
    """Save a script (replacing one of the same name) and run it at once.

    For requests like: write a script that renames these files and run it, save this and run it now.
    """
    return await server.service(ctx).save_and_run_script(
        name, description, language, code, tags or [], packages or [], args or [], timeout_ms, working_dir
    )
