"""`/approvals`, `/approve ID`, `/deny ID`: the owner's answers to calls held for approval (docs/security.md)."""

from __future__ import annotations

from orchestrator.approvals.announce import decided_text
from orchestrator.approvals.store import AlreadyDecided, ApprovalNotFound
from orchestrator.commands.registry import CommandContext, CommandError, command, usage_error
from shared.text import clip


@command("approvals", "Calls waiting for your approval")
async def approvals_command(ctx: CommandContext, args: str) -> str:
    pending = [record for record in ctx.hub.approvals.list() if record.status == "pending"]
    if not pending:
        return "Nothing waits for your approval."
    lines = [f"{len(pending)} call(s) wait for your approval:"]
    lines += [clip(f"{r.id}  {r.agentId}: {r.tool} — {r.reason}", 200) for r in pending]
    return "\n".join([*lines, "Answer with /approve ID or /deny ID."])


async def _decide(ctx: CommandContext, args: str, decision: str) -> str:
    if not ctx.owner:
        raise CommandError("Only the owner answers approval requests.")
    approval_id = args.strip()
    if not approval_id:
        raise usage_error(ctx.command, "Which approval?")
    try:
        record = ctx.hub.approvals.decide(approval_id, decision, f"the owner ({ctx.channel})")
    except ApprovalNotFound:
        raise CommandError(f"No approval {clip(approval_id, 40)!r}; /approvals lists those waiting.") from None
    except AlreadyDecided as exc:
        raise CommandError(f"Approval {approval_id} is already {exc.record.status}.") from None
    return decided_text(record)


@command("approve", "Run a call that waits for your approval", "ID")
async def approve_command(ctx: CommandContext, args: str) -> str:
    return await _decide(ctx, args, "approve")


@command("deny", "Refuse a call that waits for your approval", "ID")
async def deny_command(ctx: CommandContext, args: str) -> str:
    return await _decide(ctx, args, "deny")
