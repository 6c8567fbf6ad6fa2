"""The Filer MCP server: 13 tools over a workspace folder, with grants and an audit log.

The tools are thin: each hands its arguments to `service.Filer`, which the lifespan builds from the settings
(`FILER_*`, `ANNABELLE_HOME`) when a session starts. A configuration problem does not stop the server: every
tool then answers with the sentence that says what to fix.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from filer_mcp.models import (
    AuditLogPage,
    Copied,
    Deleted,
    FileContent,
    FileCreated,
    FileList,
    FileUpdated,
    GrantCheck,
    GrantList,
    GrantRequest,
    Moved,
    SearchResults,
    WorkspaceInfo,
)
from filer_mcp.paths import Permission
from filer_mcp.service import Filer, SearchIn, SearchType
from filer_mcp.settings import FilerSettings
from shared.mcp_tools import LOCAL_OVERWRITE, LOCAL_WRITE, READ_ONLY, EnvelopeServer, ServerState, envelope_tool
from shared.settings import ConfigError, load_settings

log = logging.getLogger(__name__)


FilerState = ServerState[Filer]


@asynccontextmanager
async def lifespan(_server: MCPServer[FilerState]) -> AsyncIterator[FilerState]:
    try:
        settings = load_settings(FilerSettings)
        filer = await anyio.to_thread.run_sync(Filer.start, settings)
    except (ConfigError, OSError) as exc:
        log.error("filer cannot start: %s", exc)
        state = FilerState(None, f"The Filer cannot work until its configuration is fixed: {exc}")
    else:
        log.info("filer ready", extra={"workspace": str(filer.workspace)})
        state = FilerState(filer)
    yield state


server: EnvelopeServer[FilerState] = EnvelopeServer(
    "filer",
    instructions=(
        "Files in the user's workspace folder. Paths are relative to the workspace; absolute paths work only "
        "for reading inside folders the user granted (see list_grants)."
    ),
    lifespan=lifespan,
)

FilerContext = Context[FilerState]

WorkspacePath = Annotated[
    str,
    # Small models copy an example into the call: the example is the plain file name a user says, so "create
    # ideas.txt" does not land in an invented folder.
    Field(
        description="The file's path relative to the workspace, exactly as the user wrote it: 'todo.md', or "
        "'notes/todo.md' inside a folder. '..' and '~' are not allowed."
    ),
]
ReadablePath = Annotated[
    str,
    Field(description="Path relative to the workspace, or an absolute path inside a granted folder."),
]


@envelope_tool(server, annotations=LOCAL_WRITE)
def create_file(
    path: WorkspacePath,
    content: Annotated[str, Field(description="The full text to write (UTF-8).")],
    ctx: FilerContext,
    overwrite: Annotated[bool, Field(description="Replace the file if it already exists.")] = False,
) -> FileCreated:
    """Create a text file in the workspace.

    Missing folders are created. Fails if the file exists, unless `overwrite` is true.

    For requests like: save this as notes.txt, make a packing checklist in trip.md, create a new file, jot this
    down in a new note.
    """
    return server.service(ctx).create_file(path, content, overwrite)


@envelope_tool(server, annotations=READ_ONLY)
def read_file(path: ReadablePath, ctx: FilerContext) -> FileContent:
    """Read a text file from the workspace or a granted folder.

    Returns the content with its size and modification time; binary and oversized files are refused.

    For requests like: open notes.md, what's in the file, read me the document.
    """
    return server.service(ctx).read_file(path)


@envelope_tool(server, annotations=READ_ONLY)
def list_files(
    ctx: FilerContext,
    path: Annotated[
        str, Field(description="Folder relative to the workspace ('.' = its root), or an absolute granted folder.")
    ] = ".",
    recursive: Annotated[bool, Field(description="Also list the contents of subfolders.")] = False,
) -> FileList:
    """List the files and folders in a workspace or granted folder.

    Folder names end with '/'. Symbolic links are shown but never followed.

    For requests like: what's in my workspace, show my files, what's in that folder.
    """
    return server.service(ctx).list_files(path, recursive)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_file(
    path: WorkspacePath,
    content: Annotated[
        str, Field(description="The new full text of the file, or with append the text to add (UTF-8).")
    ],
    ctx: FilerContext,
    create_backup: Annotated[
        bool, Field(description="First copy the current version to '<file>.bak' beside it.")
    ] = True,
    # "Add bananas to my list" as one call: without append a model must read the file and send it back whole,
    # and a small model that drops a line while copying loses the user's text.
    append: Annotated[bool, Field(description="Add content on a new line at the end instead of replacing.")] = False,
) -> FileUpdated:
    """Change an existing workspace file: replace its content, or add to its end with append.

    The old version is kept as '<file>.bak' unless `create_backup` is false.

    For requests like: add a line to my todo list, append to the note, change the file.
    """
    return server.service(ctx).update_file(path, content, create_backup, append)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def delete_file(path: WorkspacePath, ctx: FilerContext) -> Deleted:
    """Delete a file (or an empty folder) in the workspace.

    A symbolic link is removed itself; what it points to is untouched.

    For requests like: delete that file, trash the old draft.
    """
    return server.service(ctx).delete_file(path)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def move_file(
    source: Annotated[str, Field(description="The file or folder to move, relative to the workspace.")],
    destination: Annotated[str, Field(description="Its new path relative to the workspace; must not exist yet.")],
    ctx: FilerContext,
) -> Moved:
    """Move or rename a file or folder within the workspace.

    Missing folders of the destination are created; an existing destination is never replaced.

    For requests like: rename report.md, move it into the archive folder.
    """
    return server.service(ctx).move_file(source, destination)


@envelope_tool(server, annotations=LOCAL_WRITE)
def copy_file(
    source: Annotated[
        str, Field(description="The file to copy: relative to the workspace, or an absolute granted path.")
    ],
    destination: Annotated[
        str, Field(description="Where the copy goes, relative to the workspace; must not exist yet.")
    ],
    ctx: FilerContext,
) -> Copied:
    """Copy a file into the workspace.

    The source may be in the workspace or a granted folder; the destination is always in the workspace.

    For requests like: make a copy of the file, back it up.
    """
    return server.service(ctx).copy_file(source, destination)


@envelope_tool(server, annotations=READ_ONLY)
def search_files(
    query: Annotated[
        str,
        Field(description="Text to find: part of a file name (wildcards * and ? allowed) or of the file's text."),
    ],
    ctx: FilerContext,
    search_in: Annotated[
        SearchIn, Field(description="'workspace', 'granted' (all granted folders) or 'all'.")
    ] = "workspace",
    search_type: Annotated[
        SearchType, Field(description="'filename' matches names; 'content' matches text inside files.")
    ] = "filename",
    file_types: Annotated[
        list[str] | None, Field(description="Only files with these extensions, e.g. ['.md', '.txt'].")
    ] = None,
) -> SearchResults:
    """Search files by name or by content in the workspace and granted folders.

    Case-insensitive; at most 100 results, content matches with a snippet.

    For requests like: where did I put the tax spreadsheet, which notes mention the invoice.
    """
    return server.service(ctx).search_files(query, search_in, search_type, file_types)


@envelope_tool(server, annotations=READ_ONLY)
def check_grant(
    path: Annotated[str, Field(description="An absolute path (or a workspace path) to check.")],
    ctx: FilerContext,
) -> GrantCheck:
    """Check whether a path may be accessed, and through which grant.

    Workspace paths need no grant; protected locations are never accessible.

    For requests like: can you read my Documents folder on this computer.
    """
    return server.service(ctx).check_grant(path)


@envelope_tool(server, annotations=LOCAL_WRITE)
def request_grant(
    path: Annotated[str, Field(description="Absolute path of the folder or file outside the workspace.")],
    permission: Annotated[Permission, Field(description="'read' or 'read-write'.")],
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Why access is needed, for the user.")],
    ctx: FilerContext,
) -> GrantRequest:
    """Explain how the user can grant access to a folder outside the workspace.

    Nothing is granted here: the answer (status 'configure_required') names the grants file and the entry
    the user must add; 'granted' if access already exists; 'denied' for protected locations.

    For requests like: give you access to a folder outside the workspace.
    """
    return server.service(ctx).request_grant(path, permission, reason)


@envelope_tool(server, annotations=READ_ONLY)
def list_grants(ctx: FilerContext) -> GrantList:
    """List the folders outside the workspace the user has granted.

    Shows each grant's resolved path, permission and whether it exists.
    """
    return server.service(ctx).list_grants()


@envelope_tool(server, annotations=READ_ONLY)
def get_workspace_info(ctx: FilerContext) -> WorkspaceInfo:
    """Show the workspace location, file count, total size and temp file count."""
    return server.service(ctx).get_workspace_info()


@envelope_tool(server, annotations=READ_ONLY)
def get_audit_log(
    ctx: FilerContext,
    path_filter: Annotated[str | None, Field(description="Only entries whose path contains this text.")] = None,
    operation_filter: Annotated[str | None, Field(description="Only this operation, e.g. 'delete_file'.")] = None,
    date_from: Annotated[
        str | None, Field(description="Only entries at or after this ISO date/time, e.g. '2026-11-21'.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Most entries to return, newest first.")] = 100,
) -> AuditLogPage:
    """Show recent file operations from the audit log, newest first.

    Every operation is recorded, refused ones included, with its error; file contents never are.
    """
    return server.service(ctx).get_audit_log(path_filter, operation_filter, date_from, limit)
