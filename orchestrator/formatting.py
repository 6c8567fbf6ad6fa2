"""Durations for people, shared by slash commands and diagnostics. Pure."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """3725 → '1 h 2 min'; 42 → '42 s'."""
    seconds = max(int(seconds), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} d {hours % 24} h"
