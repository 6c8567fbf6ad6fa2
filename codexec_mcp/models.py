"""What the CodeExec tools return (the `data` of the envelope), with the original's field names."""

from __future__ import annotations

from pydantic import BaseModel, Field

from codexec_mcp.languages import Language


class Artifacts(BaseModel):
    """Files directly in the working folder that the run created, changed or removed."""

    created: list[str] = Field(default_factory=list)
    modified: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)


class ExecutionResult(BaseModel):
    execution_id: str
    language: Language
    stdout: str
    stderr: str
    exit_code: int | None = Field(description="The program's exit code; 128 + N when signal N ended it.")
    duration_ms: int
    timed_out: bool
    truncated: bool
    artifacts: Artifacts
    working_dir: str = Field(description="The folder it ran in, relative to the sandbox folder.")
    isolation: str
    note: str | None = Field(default=None, description="Which limit ended the run, when one did.")
    warning: str | None = None


class ScriptRunResult(ExecutionResult):
    name: str


class ScriptSavedAndRun(ScriptRunResult):
    created: bool = Field(description="The script was new (false: an existing one was replaced).")


class SessionStarted(BaseModel):
    session_id: str
    language: str
    name: str
    pid: int
    started_at: str
    working_dir: str
    isolation: str
    warning: str | None = None


class SessionExecResult(BaseModel):
    execution_id: str
    session_id: str
    stdout: str
    stderr: str
    duration_ms: int
    truncated: bool
    timed_out: bool
    session_created: bool = False
    session_closed: bool = Field(default=False, description="The session ended with this request; start a new one.")
    note: str | None = None


class SessionClosed(BaseModel):
    session_id: str
    duration_total_ms: int
    executions_count: int
    reason: str


class SessionInfo(BaseModel):
    session_id: str
    language: str
    name: str
    pid: int
    started_at: str
    last_activity_at: str
    executions_count: int
    packages_installed: list[str]
    memory_mb: float | None
    working_dir: str


class SessionList(BaseModel):
    sessions: list[SessionInfo]
    max_sessions: int
    idle_timeout_minutes: float


class PackageInstalled(BaseModel):
    package_name: str
    version: str | None
    install_output: str
    success: bool
    language: str
    session_id: str | None = None


class ScriptMetadata(BaseModel):
    name: str
    description: str
    language: Language
    tags: list[str] = Field(default_factory=list)
    packages: list[str] = Field(default_factory=list)
    created_at: str
    updated_at: str
    last_run_at: str | None = None
    run_count: int = 0
    last_run_success: bool | None = None


class ScriptSaved(BaseModel):
    name: str
    language: Language
    created: bool


class ScriptContent(BaseModel):
    code: str
    metadata: ScriptMetadata


class ScriptList(BaseModel):
    scripts: list[ScriptMetadata]


class ScriptDeleted(BaseModel):
    name: str
    deleted: bool
