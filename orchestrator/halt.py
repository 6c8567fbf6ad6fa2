"""The kill switch: which parts of Annabelle are halted, persisted in `$ANNABELLE_HOME/data/halt.json`.

Three targets can be halted on their own (`all` names the three):

- `thinker`: chat messages get a short "halted" answer and never reach an LLM;
- `channel`: inbound chat is not handled at all, except slash commands (so `/resume` still works);
- `scheduler`: scheduled skills do not run.

The state survives a restart of the hub: every change is written to a temporary file in the same folder,
flushed, and moved over `halt.json` with `os.replace`, so a crash leaves the old state or the new one, never half.
A file that exists but cannot be read counts as *everything halted*: a kill switch that silently disengages
because its file was damaged would be worse than one the owner has to `/resume` by hand.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

from shared.private_files import write_private
from shared.timeutil import Clock, utc_now

log = logging.getLogger(__name__)

Target = Literal["thinker", "channel", "scheduler"]
TARGETS: tuple[Target, ...] = get_args(Target)
ALL = "all"
HALT_FILE_VERSION = 1


def parse_target(target: str) -> tuple[Target, ...]:
    """`all` → every target; a single name → that one; anything else → ValueError naming the choices."""
    wanted = target.strip().lower()
    if wanted == ALL:
        return TARGETS
    for known in TARGETS:
        if wanted == known:
            return (known,)
    choices = ", ".join((ALL, *TARGETS))
    shown = f"'{target}'" if target.strip() else "nothing"
    raise ValueError(f"Unknown halt target {shown}: use one of {choices}.")


@dataclass(frozen=True)
class HaltEntry:
    reason: str
    since: datetime

    def as_json(self) -> dict[str, str]:
        return {"reason": self.reason, "since": self.since.isoformat(timespec="seconds")}


def decode_state(raw: object) -> dict[Target, HaltEntry]:
    """The targets of a parsed halt.json; ValueError when the shape is not ours (pure, no I/O)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("targets"), dict):
        raise ValueError('expected {"targets": {...}}')
    state: dict[Target, HaltEntry] = {}
    for target in TARGETS:
        entry = raw["targets"].get(target)
        if entry is None:
            continue
        if not isinstance(entry, dict):
            raise ValueError(f"the entry for {target!r} is not an object")
        since = datetime.fromisoformat(str(entry.get("since")))
        state[target] = HaltEntry(str(entry.get("reason") or ""), since if since.tzinfo else since.replace(tzinfo=UTC))
    unknown = sorted(set(raw["targets"]) - set(TARGETS))
    if unknown:
        raise ValueError(f"unknown targets {', '.join(map(repr, unknown))}")
    return state


def encode_state(state: dict[Target, HaltEntry]) -> str:
    targets = {target: state[target].as_json() for target in TARGETS if target in state}
    return json.dumps({"version": HALT_FILE_VERSION, "targets": targets}, indent=2) + "\n"


class HaltState:
    """The persisted kill switch. Methods are synchronous and quick: one small file, written on change only."""

    def __init__(self, path: Path, clock: Clock = utc_now) -> None:
        self.path = path
        self._clock = clock
        self._state: dict[Target, HaltEntry] = self._load()

    def _load(self) -> dict[Target, HaltEntry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return self._unreadable(str(exc.strerror or exc))
        try:
            return decode_state(json.loads(text))
        except ValueError as exc:
            return self._unreadable(str(exc))

    def _unreadable(self, why: str) -> dict[Target, HaltEntry]:
        reason = f"{self.path} could not be read ({why}); send /resume all once the cause is fixed"
        log.error("halt file unreadable; treating everything as halted", extra={"path": str(self.path), "why": why})
        now = self._clock()
        return dict.fromkeys(TARGETS, HaltEntry(reason, now))

    def _save(self) -> None:
        write_private(self.path, encode_state(self._state))

    # -- changes ------------------------------------------------------------------------------------------

    def halt(self, target: str, reason: str) -> dict[str, Any]:
        """Halt `target` (all|thinker|channel|scheduler). Halting again keeps the first time and updates the reason."""
        targets = parse_target(target)
        now = self._clock()
        for name in targets:
            previous = self._state.get(name)
            self._state[name] = HaltEntry(reason.strip(), previous.since if previous else now)
        self._save()
        log.warning("halted", extra={"targets": list(targets), "reason": reason})
        return self.describe()

    def resume(self, target: str) -> dict[str, Any]:
        """Lift the halt of `target`; resuming something that is not halted is not an error."""
        targets = parse_target(target)
        for name in targets:
            self._state.pop(name, None)
        self._save()
        log.warning("resumed", extra={"targets": list(targets)})
        return self.describe()

    # -- reading ------------------------------------------------------------------------------------------

    def halted(self, target: Target) -> bool:
        return target in self._state

    def describe(self) -> dict[str, Any]:
        """`{halted, targets, reason, since, details}`: reason and since of the latest halt, `details` per target."""
        targets = [target for target in TARGETS if target in self._state]
        latest = max((self._state[t] for t in targets), key=lambda entry: entry.since, default=None)
        return {
            "halted": bool(targets),
            "targets": targets,
            "reason": latest.reason if latest else None,
            "since": latest.since.isoformat(timespec="seconds") if latest else None,
            "details": {target: self._state[target].as_json() for target in targets},
        }

    def notice(self, target: Target) -> str:
        """The short answer a halted part gives instead of working, naming the command that lifts the halt."""
        entry = self._state.get(target)
        if entry is None:
            return f"The {target} is running."
        why = f" ({entry.reason})" if entry.reason else ""
        since = entry.since.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        return f"Annabelle's {target} is halted since {since}{why}. Send /resume {target} to resume."
