"""The hub's settings (see the configuration table in the README)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from shared.settings import REPO_ROOT, AgentsFileSettings, ApprovalSettings, HubAddressSettings, TimezoneSettings


class OrchestratorSettings(HubAddressSettings, AgentsFileSettings, TimezoneSettings, ApprovalSettings):
    guardian_fail_mode: Literal["closed", "open"] = Field(
        default="closed", description="When Guardian cannot scan: `closed` blocks the call, `open` lets it through."
    )
    guardian_input_scan: Literal["rules", "layered"] = Field(
        default="rules",
        description="What scans tool inputs: `rules` (the precise rule layer) or `layered` (rules and classifier).",
    )
    annabelle_public_docs: bool = Field(default=False, description="Serve /docs and /openapi.json without a token.")
    orchestrator_max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024, description="Request size cap.")
    annabelle_mcps_root: Path = Field(
        default=REPO_ROOT, description="Folder whose `*_mcp/manifest.json` packages are discovered."
    )
    thinker_startup_timeout_seconds: float = Field(default=90.0, gt=0, description="Time a Thinker gets to start.")
    thinker_warm_start: bool = Field(
        default=True,
        description="Start the default agent's Thinker once the hub is ready, so the first message does not wait "
        "for it (otherwise the first message or skill starts it).",
    )
    mcp_warm_up: bool = Field(
        default=True,
        description="Once the hub is ready, make each MCP's declared warm-up call (manifest `warmUp`), so the first "
        "message does not wait for Guardian's and the Memorizer's models to load.",
    )
    thinker_health_interval_seconds: float = Field(
        default=30.0, gt=0, description="How often the hub checks each Thinker's health and stops idle ones."
    )
    mcp_health_interval_seconds: float = Field(
        default=15.0, gt=0, description="Health probe (tools/list) interval per MCP."
    )
    mcp_health_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="A health probe unanswered this long is missed; three missed in a row restart the MCP.",
    )
    mcp_restart_base_seconds: float = Field(default=0.5, gt=0, description="First restart delay; doubles up to 30 s.")
    mcp_startup_timeout_seconds: float = Field(default=60.0, gt=0, description="Time an MCP gets to initialise.")
    notify_chat_id: str | None = Field(
        default=None, description="Chat that gets notifications; default: the owner's paired Telegram chat."
    )
    channel_poll_interval_ms: int = Field(
        default=500, ge=50, le=60_000, description="How often the hub asks the channel MCP for new messages."
    )
    channel_stale_minutes: float = Field(
        default=15.0, gt=0, description="Messages older than this when the hub first sees them are skipped."
    )
    guardian_owner_block_risk: float = Field(
        # 1: never on the classifier's word. Its calibration does not hold for short chat ("remember this chat"
        # scored 0.96), and a tainted owner message already makes every side effect after it wait for approval.
        default=1.0,
        ge=0,
        le=1,
        description="Guardian risk at which the owner's own chat message is blocked; below it, it passes tainted.",
    )
    external_mcps_config: Path = Field(
        default=REPO_ROOT / "external-mcps.json",
        description="Third-party MCP servers in the `mcpServers` form; edits are applied while the hub runs.",
    )
    external_mcps_poll_seconds: float = Field(
        default=1.0, gt=0, le=60, description="How often the hub checks external-mcps.json for changes."
    )
    external_mcps_debounce_seconds: float = Field(
        default=0.5, ge=0, le=30, description="How long external-mcps.json must stay unchanged before it is applied."
    )
    diagnose_interval_minutes: float = Field(
        default=360.0,
        ge=0,
        description="How often the hub runs the diagnostics checks and notifies what changed; 0 turns it off.",
    )
    approval_policy: Path = Field(
        default=REPO_ROOT / "policy.json",
        description="What may run without the owner's approval in a tainted turn (docs/security.md).",
    )
    approval_bulk_limit: int = Field(
        default=3,
        ge=0,
        le=1000,
        description="Calls of one tool that delete, overwrite or act beyond this machine that a turn may make before "
        "the next waits for the owner's approval, in any turn (docs/security.md); 0 turns the limit off.",
    )
    approval_unnamed_records: bool = Field(
        default=True,
        description="A change to one of the owner's skills, facts or contacts, or a deleted file, that the request "
        "did not name waits for the owner's approval, in any turn (docs/security.md).",
    )
    skill_concurrency: int = Field(default=3, ge=1, le=50, description="Skills that may run at the same time.")
    jobs_concurrency: int = Field(
        default=2, ge=1, le=20, description="Background jobs (queue_task, trigger_backfill) running at the same time."
    )
    skill_refresh_seconds: float = Field(
        default=30.0, gt=0, le=3600, description="How often the scheduler re-reads the skills from Memorizer."
    )
    skill_files_poll_seconds: float = Field(
        default=3.0, gt=0, le=600, description="How often $ANNABELLE_HOME/skills/*/SKILL.md is checked for changes."
    )

    @property
    def skills_dir(self) -> Path:
        return self.annabelle_home / "skills"
