"""The shape of a shipped skill, and the tools some of them need that this system does not have yet."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from shared.contracts.memory import SKILL_AUTHORED_FIELDS

SEED_SOURCE = "seed"
"""`trigger_config.source` of a shipped skill: the seeder only ever touches skills that carry it."""
SEED_VERSION_KEY = "seed_version"
"""`trigger_config.seed_version`: a hash of the shipped content, so a user's edits survive until the seed changes."""
SEED_FIELDS: tuple[str, ...] = tuple(key for key in SKILL_AUTHORED_FIELDS if key not in ("name", "execution_plan"))
"""What a seed ships, and what a new release of it rewrites: a seed is found by its name and has no plan."""


@dataclass(frozen=True)
class SeedSkill:
    """A skill the project ships: a keyword playbook (`event`) or a scheduled skill (`cron`).

    Playbooks carry `keywords` and `priority` in trigger_config, where the Thinker reads them; scheduled skills
    carry their `schedule` or `interval_minutes` (a schedule without `timezone` runs in ANNABELLE_TIMEZONE).
    """

    name: str
    description: str
    trigger_type: Literal["event", "cron"]
    trigger_config: Mapping[str, Any]
    instructions: str
    required_tools: tuple[str, ...]
    max_steps: int = 10
    notify_on_completion: bool = True
    enabled: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)

    def shipped(self) -> dict[str, Any]:
        """The `SEED_FIELDS` of this seed, as the Memorizer's tools take them."""
        content = {key: getattr(self, key) for key in SEED_FIELDS}
        content["trigger_config"] = dict(self.trigger_config)
        content["required_tools"] = list(self.required_tools)
        return content

    @property
    def version(self) -> str:
        """A short hash of everything the seed ships: it changes exactly when a release changes the skill."""
        digest = hashlib.sha256(json.dumps(self.shipped(), sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        return digest[:12]

    def store_args(self, agent_id: str) -> dict[str, Any]:
        """`memory_store_skill` arguments for this seed, marked as shipped and versioned."""
        content = self.shipped()
        content["trigger_config"].update({"source": SEED_SOURCE, SEED_VERSION_KEY: self.version})
        return {"agent_id": agent_id, "name": self.name, **content, "enabled": self.enabled}


def playbook(
    name: str, priority: int, keywords: tuple[str, ...], tools: tuple[str, ...], description: str, instructions: str
) -> SeedSkill:
    """A keyword playbook: injected into the system prompt when the message contains one of its keywords."""
    return SeedSkill(
        name=name,
        description=description,
        trigger_type="event",
        trigger_config={"keywords": list(keywords), "priority": priority},
        instructions=instructions.strip(),
        required_tools=tools,
        max_steps=10,
        notify_on_completion=False,
    )


TOOLS_FROM_ELSEWHERE: Mapping[str, str] = {
    f"vercel_{tool}": "an external Vercel MCP server added to external-mcps.json"
    for tool in (
        "getDeployments",
        "getDeployment",
        "getDeploymentEvents",
        "listDeploymentFiles",
        "getDeploymentFileContents",
    )
}
"""Tools some seeds name that no first-party MCP provides today, and where they come from.

A seed that needs one is stored disabled with a warning naming it; the scheduler enables it once the tool is
routable. The original's other missing names were mapped to real tools here: `telegram_list_contacts` (the Bot API
has no contact list) → `memory_list_contacts`. The `web_browser_*` tools of the web-browsing playbook come from
`browser_mcp` (mcpName `web`).
"""
