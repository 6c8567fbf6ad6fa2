"""`/diagnose`: every diagnostics check (orchestrator/diagnostics), problems first, each with its fix."""

from __future__ import annotations

from orchestrator.commands.registry import CommandContext, command
from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves on import)
from orchestrator.diagnostics.registry import format_report, run_checks


@command("diagnose", "Run every health check and say what to fix")
async def diagnose_command(ctx: CommandContext, args: str) -> str:
    return format_report(await run_checks(ctx))
