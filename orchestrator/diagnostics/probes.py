"""What the diagnostics checks gather: log lines, folder sizes, snapshots, and short HTTP probes of loopback or
configured model servers. Blocking work is meant for `anyio.to_thread`; HTTP probes are async with a short timeout.

Only servers the user configured are contacted (Ollama, an agent's `apiBase`): never a cloud provider.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from orchestrator.diagnostics.judge import LevelCounts, ServerProbe, count_levels
from shared.private_files import write_private

PROBE_TIMEOUT_SECONDS = 3.0
LOG_TAIL_BYTES = 8 * 1024 * 1024
"""At most this much of each log file is read (its end): a day of a busy hub's logs, without reading gigabytes."""


def ollama_model_name(model: str) -> str:
    """`ollama_chat/qwen2.5:7b` → `qwen2.5:7b` (litellm's prefix off)."""
    return model.split("/", 1)[1] if model.startswith(("ollama/", "ollama_chat/")) else model


async def fetch_json(url: str, *, headers: dict[str, str] | None = None) -> tuple[Any, str | None]:
    """GET `url`: (parsed JSON, None) or (None, why it failed in a few words)."""
    try:
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_SECONDS) as client:
            response = await client.get(url, headers=headers or {})
    except httpx.TimeoutException:
        return None, f"no answer in {PROBE_TIMEOUT_SECONDS:g} s"
    except httpx.HTTPError as exc:
        return None, type(exc).__name__ + (f": {exc}" if str(exc) else "")
    if response.status_code >= 400:
        return None, f"HTTP {response.status_code}"
    try:
        return response.json(), None
    except ValueError:
        return None, "the answer is not JSON"


async def probe_ollama(who: str, model: str, host: str) -> ServerProbe:
    """`GET {host}/api/tags`: reachable, and which models are pulled."""
    base = host.rstrip("/")
    data, error = await fetch_json(f"{base}/api/tags")
    if error is not None:
        return ServerProbe(who, model, base, error=error)
    listed = data.get("models") if isinstance(data, dict) else None
    names = tuple(str(m.get("name") or m.get("model") or "") for m in listed or [] if isinstance(m, dict))
    return ServerProbe(who, model, base, models=names)


async def probe_openai_compatible(who: str, model: str, api_base: str, key: str | None) -> ServerProbe:
    """`GET {apiBase}/models`: reachable (its model list is not checked: names differ between servers)."""
    base = api_base.rstrip("/")
    headers = {"Authorization": f"Bearer {key}"} if key else None
    _, error = await fetch_json(f"{base}/models", headers=headers)
    return ServerProbe(who, model, base, error=error)


def _tail_lines(path: Path, limit: int = LOG_TAIL_BYTES) -> Iterator[str]:
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(size - limit, 0))
        data = handle.read()
    if size > limit:
        data = data.split(b"\n", 1)[-1]  # the first line is cut in the middle
    yield from data.decode("utf-8", errors="replace").splitlines()


def log_level_counts(logs_dir: Path, now: datetime | None = None) -> LevelCounts:
    """ERROR/WARNING counts over `*.log` and rotated `*.log.N` files changed in the last 25 hours."""
    now = now or datetime.now(UTC)
    counts = LevelCounts()
    oldest = (now - timedelta(hours=25)).timestamp()
    if not logs_dir.is_dir():
        return counts
    for path in sorted(logs_dir.glob("*.log*")):
        try:
            if not path.is_file() or path.stat().st_mtime < oldest:
                continue
            count_levels(_tail_lines(path), now, counts)
        except OSError:
            continue  # rotated away while we looked
    return counts


def folder_size(path: Path) -> int | None:
    """Bytes in a file or folder (recursively), None when it does not exist."""
    if path.is_file():
        return path.stat().st_size
    if not path.is_dir():
        return None
    total = 0
    for child in path.rglob("*"):
        try:
            if child.is_file():
                total += child.stat().st_size
        except OSError:
            continue
    return total


def session_count(sessions_dir: Path) -> int:
    if not sessions_dir.is_dir():
        return 0
    return sum(1 for child in sessions_dir.rglob("*") if child.is_file() and not child.name.startswith("."))


def read_snapshot(path: Path) -> dict[str, Any] | None:
    """The saved tool snapshot, or None when there is none (or it is unreadable: a new one replaces it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("tools"), list) else None


def write_json_atomically(path: Path, data: Any) -> None:
    write_private(path, json.dumps(data, indent=2, ensure_ascii=False))
