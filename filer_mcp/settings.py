"""The Filer's settings: where the workspace, the grants file and the audit log live, and its limits."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from shared.settings import UserPath, WorkspaceSettings

DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024


class FilerSettings(WorkspaceSettings):
    """`FILER_*` variables (`FILER_WORKSPACE` is declared in `WorkspaceSettings`); unset paths default to places
    under `$ANNABELLE_HOME`."""

    filer_grants_config: UserPath | None = Field(
        default=None,
        description="JSON file of folders outside the workspace it may read (default …/filer/grants.json).",
    )
    filer_audit_log: UserPath | None = Field(
        default=None, description="JSONL audit log of file operations (default …/logs/fileops-audit.jsonl)."
    )
    filer_temp_cleanup_days: int = Field(
        default=7,
        ge=0,
        description="Files under the workspace's temp/ older than this are removed at start; 0 = never.",
    )
    filer_max_read_bytes: int = Field(
        default=DEFAULT_MAX_READ_BYTES, ge=1, description="Largest file read_file returns (and create/update write)."
    )

    @property
    def grants_config(self) -> Path:
        return self.filer_grants_config or self.annabelle_home / "filer" / "grants.json"

    @property
    def audit_log(self) -> Path:
        return self.filer_audit_log or self.logs_dir / "fileops-audit.jsonl"
