"""`/security [N]`: Guardian's configuration, its last 24 hours, and the last N threats it found.

The figures come from Guardian's audit log (`get_scan_log`, newest first, hashes and verdicts only, never the
scanned content) and from the hub's own scan gate (fail mode, counters since the hub started).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from orchestrator.commands._helpers import parse_count
from orchestrator.commands.registry import CommandContext, command
from shared.text import clip

DEFAULT_THREATS = 10
MAX_THREATS = 50
STATS_SCANS = 1000  # the 24-hour figures are taken over at most this many recent scans


@dataclass(frozen=True)
class ScanStats:
    scans: int
    threats: int
    by_type: tuple[tuple[str, int], ...]
    by_source: tuple[tuple[str, int], ...]
    capped: bool  # the window held more scans than were read


def parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def window_stats(entries: list[dict[str, Any]], now: datetime, hours: float = 24) -> ScanStats:
    """Scans and threats among `entries` (newest first) within the last `hours` (pure)."""
    since = now - timedelta(hours=hours)
    recent = [e for e in entries if (moment := parse_time(str(e.get("timestamp", "")))) and moment >= since]
    threats = [e for e in recent if not e.get("safe", True)]
    types = Counter(str(t.get("type", "?")) for e in threats for t in e.get("threats") or [{"type": "unknown"}])
    sources = Counter(str(e.get("source") or "?").split(":", 1)[0] for e in threats)
    return ScanStats(
        scans=len(recent),
        threats=len(threats),
        by_type=tuple(types.most_common(5)),
        by_source=tuple(sources.most_common(5)),
        capped=len(recent) == len(entries) == STATS_SCANS,
    )


def threat_line(entry: dict[str, Any]) -> str:
    moment = parse_time(str(entry.get("timestamp", "")))
    stamp = moment.astimezone().strftime("%m-%d %H:%M") if moment else "?"
    types = ", ".join(dict.fromkeys(str(t.get("type", "?")) for t in entry.get("threats") or [])) or "unsafe"
    confidence = entry.get("confidence")
    shown = f", confidence {confidence:.2f}" if isinstance(confidence, int | float) else ""
    return clip(f"{stamp} {types} in {entry.get('source') or '?'} ({entry.get('scanner', '?')}{shown})", 200)


def format_security(
    gate: dict[str, Any], stats: ScanStats | None, threats: list[dict[str, Any]] | None, count: int, error: str | None
) -> str:
    """The `/security` answer from the gate's figures and what the audit log gave (pure)."""
    state = "available" if gate.get("available") else "UNAVAILABLE"
    lines = [
        f"Guardian: {state}, fail mode {gate.get('failMode')} "
        f"({'block' if gate.get('failMode') == 'closed' else 'allow'} when it cannot scan)",
        f"Since the hub started: {gate.get('scans', 0)} scans, {gate.get('blocked', 0)} blocked, "
        f"{gate.get('unavailable', 0)} without Guardian",
    ]
    if error is not None:
        lines.append(f"Audit log unavailable: {error}")
        return "\n".join(lines)
    if stats is not None:
        more = "+" if stats.capped else ""
        line = f"Last 24 h: {stats.scans}{more} scans, {stats.threats} threats"
        if stats.by_type:
            line += " (" + ", ".join(f"{name} {n}" for name, n in stats.by_type) + ")"
        lines.append(line)
        if stats.by_source:
            lines.append("Threats by source: " + ", ".join(f"{name} {n}" for name, n in stats.by_source))
    if threats:
        lines.append(f"Last {min(count, len(threats))} threat(s), newest first:")
        lines.extend(f"  {threat_line(entry)}" for entry in threats[:count])
    else:
        lines.append("No threats in the audit log.")
    return "\n".join(lines)


async def recent_threats(ctx: CommandContext, limit: int) -> list[dict[str, Any]]:
    """The newest `limit` threats from Guardian's audit log; RuntimeError with Guardian's reason when it fails."""
    envelope = await ctx.hub.call("guardian_get_scan_log", {"limit": limit, "threats_only": True}, caller=ctx.caller)
    if not envelope.get("success"):
        raise RuntimeError(str(envelope.get("error")))
    return list((envelope.get("data") or {}).get("entries") or [])


@command("security", "Guardian's configuration, last-24-hour figures and latest threats", usage="[N threats ≤ 50]")
async def security_command(ctx: CommandContext, args: str) -> str:
    count = parse_count(args, command="security", default=DEFAULT_THREATS, maximum=MAX_THREATS)
    gate = ctx.hub.status()["guardian"]
    scans = await ctx.hub.call("guardian_get_scan_log", {"limit": STATS_SCANS}, caller=ctx.caller)
    if not scans.get("success"):
        return format_security(gate, None, None, count, str(scans.get("error")))
    entries = list((scans.get("data") or {}).get("entries") or [])
    stats = window_stats(entries, datetime.now(UTC))
    try:
        threats = await recent_threats(ctx, count)
    except RuntimeError as exc:
        return format_security(gate, stats, None, count, str(exc))
    return format_security(gate, stats, threats, count, None)
