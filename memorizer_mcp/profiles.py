"""Profiles: one JSON document per agent about the user, with every earlier version kept in profile_history."""

from __future__ import annotations

import copy
import json
from typing import Any

from memorizer_mcp.db.connection import Database

DEFAULT_PROFILE: dict[str, Any] = {
    "user_info": {"name": None, "background": None, "timezone": None, "current_role": None},
    "preferences": {"communication": None, "coding_languages": [], "tools": [], "working_style": None},
    "current_projects": [],
    "learned_patterns": [],
}


def default_profile() -> dict[str, Any]:
    return copy.deepcopy(DEFAULT_PROFILE)


class ProfileStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, agent_id: str) -> tuple[dict[str, Any] | None, str | None]:
        """The stored profile and when it was last updated, or (None, None)."""
        with self.db.reading() as conn:
            row = conn.execute(
                "SELECT profile_data, updated_at FROM profiles WHERE agent_id = ?", (agent_id,)
            ).fetchone()
        if row is None:
            return None, None
        try:
            data = json.loads(row["profile_data"])
        except json.JSONDecodeError:
            data = None
        return (data if isinstance(data, dict) else default_profile()), row["updated_at"]

    def replace(self, agent_id: str, profile: dict[str, Any], reason: str | None, now: str) -> None:
        """Save `profile`; the version it replaces (if any) goes to profile_history with `reason`, atomically."""
        encoded = json.dumps(profile, ensure_ascii=False)
        with self.db.transaction() as conn:
            old = conn.execute("SELECT profile_data FROM profiles WHERE agent_id = ?", (agent_id,)).fetchone()
            if old is None:
                conn.execute(
                    "INSERT INTO profiles (agent_id, profile_data, created_at, updated_at) VALUES (?, ?, ?, ?)",
                    (agent_id, encoded, now, now),
                )
                return
            conn.execute(
                "INSERT INTO profile_history (agent_id, profile_data, changed_at, change_reason) VALUES (?, ?, ?, ?)",
                (agent_id, old["profile_data"], now, reason),
            )
            conn.execute(
                "UPDATE profiles SET profile_data = ?, updated_at = ? WHERE agent_id = ?", (encoded, now, agent_id)
            )

    def history_count(self, agent_id: str) -> int:
        with self.db.reading() as conn:
            return int(
                conn.execute("SELECT COUNT(*) FROM profile_history WHERE agent_id = ?", (agent_id,)).fetchone()[0]
            )
