"""Profile, skills, contacts, projects, project sources and the timeline: checks and sentences around the stores.

Synchronous on purpose: the MCP tool wrapper runs them in a worker thread. Every operation is scoped by agent;
an id that belongs to another agent is reported exactly like one that does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memorizer_mcp.contacts import contact_dict
from memorizer_mcp.conversations import conversation_dict
from memorizer_mcp.dotpath import PathError, set_path
from memorizer_mcp.params import MAX_TEXT_BYTES, TIMELINE_SOURCES, limit_substring_query, limit_text, require_text
from memorizer_mcp.profiles import default_profile
from memorizer_mcp.projects import project_dict, source_dict
from memorizer_mcp.secret_filter import find_secret_in, refusal
from memorizer_mcp.service import Memory, unfiltered_hint
from memorizer_mcp.skills import skill_dict, skill_summary
from memorizer_mcp.timestamps import db_moment
from shared.mcp_tools import InvalidArguments, NotFound, ToolFailure

ALL_AGENTS = "*"


def _moment(field: str, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return db_moment(value)
    except ValueError as exc:
        raise InvalidArguments(f"{field}: {exc}") from None


def _texts(**fields: str | None) -> None:
    for name, value in fields.items():
        limit_text(name, value)


def _check_changes(
    changes: dict[str, Any], id_field: str, *, required: tuple[str, ...], limited: tuple[str, ...]
) -> None:
    """An update's fields, checked in place: at least one given, the `required` texts not blank (and trimmed), the
    `limited` ones within the length limit."""
    if not changes:
        raise InvalidArguments(f"Nothing to update: give at least one field besides {id_field}.")
    for field in required:
        if field in changes:
            changes[field] = require_text(field, changes[field])
    _texts(**{field: changes.get(field) for field in limited})


class Records:
    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    # -- profile -----------------------------------------------------------------------------------------------

    def get_profile(self, agent_id: str) -> dict[str, Any]:
        profile, updated = self.memory.profiles.get(agent_id)
        return {"profile": profile if profile is not None else default_profile(), "last_updated": updated}

    def update_profile(self, agent_id: str, updates: dict[str, Any], reason: str | None) -> dict[str, Any]:
        if not updates:
            raise InvalidArguments("updates is empty: give at least one field, e.g. {'user_info.name': 'Ana'}.")
        limit_text("reason", reason)
        stored, _ = self.memory.profiles.get(agent_id)
        profile = stored if stored is not None else default_profile()
        for path, value in updates.items():
            kind = find_secret_in(value)
            if kind is not None:
                raise InvalidArguments(refusal(f"The value for {path}", kind))
            try:
                set_path(profile, path, value)
            except PathError as exc:
                raise InvalidArguments(f"{exc}. Nothing was changed.") from None
        size = len(json.dumps(profile, ensure_ascii=False).encode())
        if size > MAX_TEXT_BYTES:
            raise InvalidArguments(f"The profile would be {size:,} bytes; the limit is 1 MB. Nothing was changed.")
        self.memory.profiles.replace(agent_id, profile, reason, self.memory.now())
        return {"updated_fields": list(updates)}

    # -- conversations -----------------------------------------------------------------------------------------

    def search_conversations(
        self, agent_id: str, query: str, limit: int, date_from: str | None, date_to: str | None
    ) -> dict[str, Any]:
        query = require_text("query", query)
        limit_substring_query("query", query)
        start = _moment("date_from", date_from)
        try:
            end = db_moment(date_to, end_of_day=True) if date_to else None
        except ValueError as exc:
            raise InvalidArguments(f"date_to: {exc}") from None
        rows, total = self.memory.conversations.search(agent_id, query, limit, start, end)
        return {"conversations": [conversation_dict(row) for row in rows], "total_count": total}

    # -- skills ------------------------------------------------------------------------------------------------

    def store_skill(self, agent_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        fields["name"] = require_text("name", fields["name"])
        fields["instructions"] = require_text("instructions", fields["instructions"])
        _texts(description=fields.get("description"))
        skill_id, existed = self.memory.skills.create(agent_id, fields, self.memory.now())
        result: dict[str, Any] = {"skill_id": skill_id, "stored_at": self.memory.now()}
        if existed:
            row = self.memory.skills.get(agent_id, skill_id)
            if row is not None and _differs(skill_dict(row), fields):
                # Saying "already existed" with success let a model report a reminder it never stored (the 1.5B
                # model named every skill "Morning Briefing", the seeded one's name): a different skill is refused.
                raise InvalidArguments(
                    f"Agent '{agent_id}' already has a different skill named '{fields['name']}' (id {skill_id}); "
                    "nothing was stored. Give this one another name, or change that one with update_skill."
                )
            result["already_existed"] = True
            result["message"] = f"Agent '{agent_id}' already has this skill ('{fields['name']}'); nothing changed."
        return result

    def list_skills(
        self, agent_id: str, enabled: bool | None, trigger_type: str | None, *, full: bool
    ) -> dict[str, Any]:
        every_agent = agent_id == ALL_AGENTS
        whose = None if every_agent else agent_id
        rows = self.memory.skills.listing(whose, enabled, trigger_type)
        shown = [skill_dict(row) if full else skill_summary(row, with_agent=every_agent) for row in rows]
        listed: dict[str, Any] = {"skills": shown, "total_count": len(rows)}
        if not rows and (enabled is not None or trigger_type is not None):
            # The 1.5B model lists with `trigger_type: "manual"` to find a weekly reminder, sees none, and stops.
            everything = len(self.memory.skills.listing(whose, None, None))
            if everything:
                listed["hint"] = unfiltered_hint("skill", everything, "enabled, trigger_type")
        return listed

    def get_skill(self, agent_id: str, skill_id: int) -> dict[str, Any]:
        row = self.memory.skills.get(agent_id, skill_id)
        if row is None:
            raise NotFound(f"Skill {skill_id} does not exist for agent '{agent_id}'.")
        return {"skill": skill_dict(row)}

    def update_skill(self, agent_id: str, skill_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        _check_changes(
            changes,
            "skill_id",
            required=("name", "instructions"),
            limited=("description", "last_run_summary", "last_run_status", "last_error"),
        )
        for field in ("last_run_at", "last_notified_at", "backoff_until"):
            if field in changes:
                changes[field] = _moment(field, changes[field])
        skills = self.memory.skills
        if skills.get(agent_id, skill_id) is None:
            raise NotFound(f"Skill {skill_id} does not exist for agent '{agent_id}'.")
        if "name" in changes and (other := skills.name_taken(agent_id, changes["name"], skill_id)) is not None:
            raise InvalidArguments(f"Agent '{agent_id}' already has a skill named '{changes['name']}' (id {other}).")
        skills.update(agent_id, skill_id, changes, self.memory.now())
        return {"updated_fields": list(changes)}

    def delete_skill(self, agent_id: str, skill_id: int) -> dict[str, Any]:
        row = self.memory.skills.delete(agent_id, skill_id)
        if row is None:
            raise NotFound(f"Skill {skill_id} does not exist for agent '{agent_id}'.")
        return {"deleted_skill": row["name"], "skill_id": skill_id}

    # -- contacts ----------------------------------------------------------------------------------------------

    def create_contact(self, agent_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        fields["name"] = require_text("name", fields["name"])
        fields["email"] = require_text("email", fields["email"])
        _texts(company=fields.get("company"), role=fields.get("role"), notes=fields.get("notes"))
        contact_id, clash = self.memory.contacts.create(agent_id, fields, self.memory.now())
        if clash is not None:
            raise InvalidArguments(
                f"A contact with the e-mail {fields['email']} already exists for agent '{agent_id}' "
                f"(id {clash['id']}, name '{clash['name']}'); use update_contact to change it."
            )
        return {"contact_id": contact_id, "created_at": self.memory.now()}

    def list_contacts(self, agent_id: str, filters: dict[str, Any], limit: int) -> dict[str, Any]:
        limit_substring_query("name", filters.get("name"))
        rows, total = self.memory.contacts.listing(agent_id, filters, limit)
        return {"contacts": [contact_dict(row) for row in rows], "total_count": total}

    def get_contact(self, agent_id: str, contact_id: int) -> dict[str, Any]:
        row = self.memory.contacts.get(agent_id, contact_id)
        if row is None:
            raise NotFound(f"Contact {contact_id} does not exist for agent '{agent_id}'.")
        return {"contact": contact_dict(row)}

    def update_contact(self, agent_id: str, contact_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        _check_changes(changes, "contact_id", required=("name", "email"), limited=("company", "role", "notes"))
        found, clash = self.memory.contacts.update(agent_id, contact_id, changes, self.memory.now())
        if not found:
            raise NotFound(f"Contact {contact_id} does not exist for agent '{agent_id}'.")
        if clash is not None:
            raise InvalidArguments(
                f"Another contact already has the e-mail {changes['email']} (id {clash['id']}, name '{clash['name']}')."
            )
        return {"updated_fields": list(changes)}

    # -- projects ----------------------------------------------------------------------------------------------

    def _check_people(self, agent_id: str, primary: int | None, participants: Sequence[int] | None) -> None:
        wanted = [*([primary] if primary else []), *(participants or [])]
        missing = self.memory.contacts.exists(agent_id, wanted) if wanted else []
        if missing:
            raise InvalidArguments(
                f"No contact with id {', '.join(map(str, missing))} exists for agent '{agent_id}'; "
                "create the contact first (create_contact) or use list_contacts to find its id."
            )

    def create_project(self, agent_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        fields["name"] = require_text("name", fields["name"])
        _texts(description=fields.get("description"), company=fields.get("company"))
        self._check_people(agent_id, fields.get("primary_contact_id"), fields.get("participants"))
        project_id, clash = self.memory.projects.create(agent_id, fields, self.memory.now())
        if clash is not None:
            raise InvalidArguments(
                f"A project named '{fields['name']}' already exists for agent '{agent_id}' (id {clash}); "
                "use update_project to change it."
            )
        return {"project_id": project_id, "created_at": self.memory.now()}

    def list_projects(self, agent_id: str, filters: dict[str, Any], limit: int) -> dict[str, Any]:
        rows, total = self.memory.projects.listing(agent_id, filters, limit)
        return {"projects": [project_dict(row) for row in rows], "total_count": total}

    def update_project(self, agent_id: str, project_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        _check_changes(changes, "project_id", required=("name",), limited=("description", "company"))
        # 0 clears the primary contact and "none" the priority: null means "leave as is", since models send
        # null for every optional parameter they do not mean to set.
        if changes.get("primary_contact_id") == 0:
            changes["primary_contact_id"] = None
        if changes.get("priority") == "none":
            changes["priority"] = None
        if self.memory.projects.get(agent_id, project_id) is None:
            raise NotFound(f"Project {project_id} does not exist for agent '{agent_id}'.")
        self._check_people(agent_id, changes.get("primary_contact_id"), changes.get("participants"))
        found, clash = self.memory.projects.update(agent_id, project_id, changes, self.memory.now())
        if not found:
            raise NotFound(f"Project {project_id} does not exist for agent '{agent_id}'.")
        if clash is not None:
            raise InvalidArguments(f"Another project is already named '{changes['name']}' (id {clash}).")
        return {"updated_fields": list(changes)}

    # -- project sources ---------------------------------------------------------------------------------------

    def link_project_source(self, agent_id: str, project_id: int, fields: dict[str, Any]) -> dict[str, Any]:
        fields["mcp_name"] = require_text("mcp_name", fields["mcp_name"])
        _texts(
            external_project_id=fields.get("external_project_id"),
            external_project_name=fields.get("external_project_name"),
        )
        linked = self.memory.projects.link(agent_id, project_id, fields, self.memory.now())
        if linked is None:
            raise NotFound(f"Project {project_id} does not exist for agent '{agent_id}'.")
        source_id, existed = linked
        result: dict[str, Any] = {"project_source_id": source_id, "linked_at": self.memory.now()}
        if existed:
            result["already_existed"] = True
        return result

    def unlink_project_source(self, agent_id: str, project_id: int, mcp_name: str) -> dict[str, Any]:
        name = self.memory.projects.unlink(agent_id, project_id, mcp_name)
        if name is None:
            raise ToolFailure(f"Project {project_id} of agent '{agent_id}' has no link to the MCP '{mcp_name}'.")
        return {"unlinked_project": name, "unlinked_mcp": mcp_name}

    def list_project_sources(
        self, agent_id: str, project_id: int | None, mcp_name: str | None, limit: int
    ) -> dict[str, Any]:
        rows, total = self.memory.projects.sources(agent_id, project_id, mcp_name, limit)
        return {"sources": [source_dict(row) for row in rows], "total_count": total}

    def update_project_source_status(
        self, agent_id: str, source_id: int, status: str, checked_at: str | None
    ) -> dict[str, Any]:
        now = self.memory.now()
        moment = _moment("last_checked_at", checked_at) or now
        if not self.memory.projects.set_source_status(agent_id, source_id, status, moment, now):
            raise NotFound(f"Project source {source_id} does not exist for agent '{agent_id}'.")
        return {"updated_fields": ["last_status", "last_checked_at"]}

    # -- timeline ----------------------------------------------------------------------------------------------

    def query_timeline(
        self,
        agent_id: str,
        date_from: str,
        date_to: str | None,
        categories: Sequence[str] | None,
        query: str | None,
        limit: int,
    ) -> dict[str, Any]:
        start = _moment("date_from", date_from)
        try:
            end = db_moment(date_to, end_of_day=True) if date_to else self.memory.now()
        except ValueError as exc:
            raise InvalidArguments(f"date_to: {exc}") from None
        assert start is not None
        if end < start:
            raise InvalidArguments(f"date_to ({end}) is before date_from ({start}).")
        limit_substring_query("query", query)
        sources = list(dict.fromkeys(categories)) if categories else list(TIMELINE_SOURCES)
        keyword = query.strip() if query and query.strip() else None
        events, total = self.memory.timeline.query(agent_id, start, end, sources, keyword, limit)
        return {
            "events": events,
            "total_count": total,
            "date_range": {"from": start, "to": end},
            "sources_queried": sources,
        }


def _differs(stored: dict[str, Any], given: dict[str, Any]) -> bool:
    """Whether storing `given` under a taken name asks for another skill than the one stored (what it does and when;
    bookkeeping the stored one gained since, such as a seed's version in its trigger_config, does not count)."""
    if stored.get("instructions") != given.get("instructions"):
        return True
    stored_trigger, given_trigger = stored.get("trigger_config") or {}, given.get("trigger_config") or {}
    return any(stored_trigger.get(key) != value for key, value in given_trigger.items())
