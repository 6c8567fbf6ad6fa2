"""CodeExec's settings: where the sandbox and the saved scripts live, the isolation mode and every limit."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from shared.settings import CommonSettings, UserPath

IsolationSetting = Literal["bwrap", "limits-only"]


class CodexecSettings(CommonSettings):
    """`CODEXEC_*` variables; unset paths default to places under `$ANNABELLE_HOME/codexec`."""

    codexec_sandbox_dir: UserPath | None = Field(
        default=None, description="The folder sandboxed code may write (default $ANNABELLE_HOME/codexec/sandbox)."
    )
    codexec_scripts_dir: UserPath | None = Field(
        default=None, description="Saved scripts (default $ANNABELLE_HOME/codexec/scripts)."
    )
    codexec_isolation: IsolationSetting = Field(
        default="bwrap",
        description=(
            "bwrap: namespaces (no network, own filesystem view); limits-only: resource limits and a clean "
            "environment only, for hosts that forbid namespaces."
        ),
    )
    codexec_network: bool = Field(
        default=False, description="Let sandboxed code and package installs reach the network."
    )
    codexec_default_timeout_ms: int = Field(
        default=30_000, ge=100, description="Wall-time limit when a call sets none."
    )
    codexec_max_timeout_ms: int = Field(
        default=300_000, ge=1000, le=300_000, description="Largest timeout_ms a call may ask for."
    )
    codexec_cpu_seconds: int = Field(default=120, ge=1, description="CPU seconds each process of a run may use.")
    codexec_session_cpu_seconds: int = Field(
        default=900, ge=1, description="CPU seconds a session's process may use over its whole life."
    )
    codexec_memory_mb: int = Field(default=1024, ge=32, description="Memory (data segment) each process may allocate.")
    codexec_max_processes: int = Field(default=64, ge=4, le=4096, description="Processes one sandbox may run at once.")
    codexec_max_file_mb: int = Field(default=50, ge=1, description="Largest file a sandboxed process may write.")
    codexec_tmp_mb: int = Field(default=64, ge=1, description="Size of the sandbox's private /tmp (bwrap only).")
    codexec_max_output_chars: int = Field(
        default=10_000, ge=100, description="stdout or stderr longer than this is cut to head + tail."
    )
    codexec_truncation_head: int = Field(default=4_000, ge=0, description="Characters kept from the start.")
    codexec_truncation_tail: int = Field(default=4_000, ge=0, description="Characters kept from the end.")
    codexec_max_output_bytes: int = Field(
        default=8 * 1024 * 1024, ge=1024, description="A run that writes more output than this is stopped."
    )
    codexec_max_sessions: int = Field(default=5, ge=1, le=50, description="Sessions that may run at once.")
    codexec_session_idle_minutes: float = Field(default=15, gt=0, description="A session unused this long is closed.")
    codexec_max_concurrent_runs: int = Field(default=4, ge=1, le=64, description="One-shot runs at the same time.")
    codexec_kill_grace_seconds: float = Field(
        default=5, ge=0, le=60, description="Time between SIGTERM and SIGKILL when a run is stopped."
    )
    codexec_install_timeout_seconds: int = Field(default=120, ge=5, le=290, description="Time one install may take.")
    codexec_pip_find_links: UserPath | None = Field(
        default=None, description="A folder of wheels pip installs from (without the network, only from there)."
    )
    codexec_readonly_paths: str = Field(
        default="", description="Comma list of extra host folders the sandbox sees read-only (e.g. /opt/node)."
    )
    codexec_sandbox_uid: int = Field(
        default=65534, ge=1, description="The uid sandboxed code runs as when the server runs as root."
    )
    codexec_sandbox_gid: int = Field(default=65534, ge=1, description="Its gid.")

    @model_validator(mode="after")
    def _coherent(self) -> CodexecSettings:
        if self.codexec_default_timeout_ms > self.codexec_max_timeout_ms:
            raise ValueError("CODEXEC_DEFAULT_TIMEOUT_MS must not exceed CODEXEC_MAX_TIMEOUT_MS")
        if self.codexec_truncation_head + self.codexec_truncation_tail > self.codexec_max_output_chars:
            raise ValueError(
                "CODEXEC_TRUNCATION_HEAD + CODEXEC_TRUNCATION_TAIL must not exceed CODEXEC_MAX_OUTPUT_CHARS"
            )
        return self

    @property
    def sandbox_dir(self) -> Path:
        return self.codexec_sandbox_dir or self.annabelle_home / "codexec" / "sandbox"

    @property
    def scripts_dir(self) -> Path:
        return self.codexec_scripts_dir or self.annabelle_home / "codexec" / "scripts"

    @property
    def state_dir(self) -> Path:
        """The server's own files the sandbox reads through read-only binds (its /etc/passwd, …)."""
        return self.annabelle_home / "codexec" / "host"

    @property
    def readonly_paths(self) -> list[str]:
        return [item.strip() for item in self.codexec_readonly_paths.split(",") if item.strip()]
