"""`/kill <target> [reason]` and `/resume <target>`: the persisted kill switch (orchestrator/halt.py).

`thinker` stops chat from reaching any LLM, `channel` stops inbound chat except slash commands, `scheduler`
stops scheduled skills, `all` the three. `/resume thinker` (or `all`) also lifts the agents' cost pauses. Each
answer ends with a status line so the owner sees the effect.
"""

from __future__ import annotations

from orchestrator.commands.registry import CommandContext, command, usage_error
from orchestrator.commands.status import status_line
from orchestrator.halt import ALL, TARGETS

TARGET_USAGE = "<" + "|".join((ALL, *TARGETS)) + ">"


def split_target(args: str, name: str) -> tuple[str, str]:
    """`"thinker too many calls"` → ("thinker", "too many calls"); no target is a usage error (pure)."""
    target, _, rest = args.strip().partition(" ")
    if not target:
        raise usage_error(name, "Which part?")
    return target.lower(), rest.strip()


@command("kill", "Halt a part of Annabelle (persisted across restarts)", usage=f"{TARGET_USAGE} [reason]")
async def kill_command(ctx: CommandContext, args: str) -> str:
    target, reason = split_target(args, "kill")
    try:
        ctx.halt.halt(target, reason or f"/kill from {ctx.channel}")
    except ValueError as exc:
        raise usage_error("kill", str(exc)) from None
    halted = ", ".join(TARGETS) if target == ALL else target
    return f"Halted: {halted}. Send /resume {target} to undo.\n{status_line(ctx)}"


@command("resume", "Lift a halt set by /kill", usage=TARGET_USAGE)
async def resume_command(ctx: CommandContext, args: str) -> str:
    target, _ = split_target(args, "resume")
    try:
        ctx.halt.resume(target)
    except ValueError as exc:
        raise usage_error("resume", str(exc)) from None
    resumed = ", ".join(TARGETS) if target == ALL else target
    answer = f"Resumed: {resumed}."
    if target in (ALL, "thinker"):
        # A cost pause stops an agent as surely as a halt: resuming the thinker lifts both.
        unpaused = await ctx.agents.resume_paused()
        if unpaused:
            answer += f" Cost pause lifted for: {', '.join(unpaused)}."
    return f"{answer}\n{status_line(ctx)}"
