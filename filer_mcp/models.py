"""What the tools return (the `data` of the envelope). Field names follow the original Filer where it had one."""

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


class FileWritten(BaseModel):
    path: str
    size_bytes: int
    overwritten: bool = False
    backup_path: str | None = None


class Deleted(BaseModel):
    path: str
    type: EntryKind


class Moved(BaseModel):
    source: str
    destination: str
    type: EntryKind


class Copied(BaseModel):
    source: str
    destination: str
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
    granted: bool
    scope: Zone | None = None
    permission: Permission | None = None
    grant_path: str | None = None
    reason: str | None = None


class GrantRequest(BaseModel):
    status: Literal["configure_required", "already_granted", "denied"]
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
