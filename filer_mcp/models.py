"""What the tools return (the `data` of the envelope).

Field names follow the original Filer, except that workspace paths are given relative to the workspace (what
the other tools take) rather than absolute.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from filer_mcp.audit import AuditEntry
from filer_mcp.fsops import EntryKind
from filer_mcp.paths import Permission, Zone


class FileContent(BaseModel):
    path: str
    content: str
    size_bytes: int
    modified_at: str


class FileCreated(BaseModel):
    path: str
    size_bytes: int
    created_at: str
    overwritten: bool


class FileUpdated(BaseModel):
    path: str
    size_bytes: int
    updated_at: str
    backup_path: str | None


class Deleted(BaseModel):
    deleted_path: str
    type: EntryKind


class Moved(BaseModel):
    old_path: str
    new_path: str
    type: EntryKind


class Copied(BaseModel):
    source_path: str
    destination_path: str
    size_bytes: int


class FileInfo(BaseModel):
    name: str = Field(description="Relative to the listed folder; folders end with '/'.")
    path: str = Field(description="What to pass to the other tools.")
    type: EntryKind
    size_bytes: int | None = None
    modified_at: str | None = None


class FileList(BaseModel):
    path: str
    files: list[FileInfo]
    truncated: bool = False


class SearchHit(BaseModel):
    path: str
    match_type: Literal["filename", "content"]
    modified_at: str
    snippet: str | None = None


class SearchResults(BaseModel):
    results: list[SearchHit]
    total_count: int
    searched_locations: list[str]
    truncated: bool = False


class GrantCheck(BaseModel):
    path: str
    has_access: bool
    scope: Zone | None = None
    permission: Permission | None = None
    granted_path: str | None = None
    reason: str | None = None


class GrantRequest(BaseModel):
    status: Literal["configure_required", "granted", "denied"]
    message: str
    grants_file: str
    entry: dict[str, str] | None = None


class GrantInfo(BaseModel):
    path: str
    permission: Permission
    exists: bool


class GrantList(BaseModel):
    grants_file: str
    grants: list[GrantInfo]


class WorkspaceInfo(BaseModel):
    workspace_path: str
    total_files: int
    total_size_mb: float
    temp_files: int


class AuditLogPage(BaseModel):
    entries: list[AuditEntry]
    count: int
