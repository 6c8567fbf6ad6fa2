"""A change to one of the owner's records that the request did not name waits for the owner, end to end: the real
hub, Memorizer and Thinker, and a scripted model that does what its script says in a turn that read nothing
untrusted (the 1.5B model's mistake: asked for a new reminder, it deleted two built-in ones nobody mentioned).

Named records (by name, by words of it, in the owner's earlier message of the same chat) change without asking, and
so does a record the turn made itself; anything else waits, and the approval names the record."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.obedient_model import obey
from tests.fakes.openai_server import FakeOpenAI, Handler, Reply, ToolCall
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub
from tests.stack import pending_approvals, wait_for

pytestmark = pytest.mark.slow

AGENT = {"agent_id": "annabelle"}


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("record-approvals")
    env = {
        **fake_llm_agent_env(workdir, llm.api_base, allowedTools=["memory_*", "filer_*"]),
        "APPROVAL_TIMEOUT_S": "60",
        "GUARDIAN_FAIL_MODE": "open",  # Guardian is not what is tested here: no Guardian MCP runs
        "EMBEDDING_PROVIDER": "multilingual",  # the Memorizer judges requests in other languages by meaning
    }
    with start_hub(workdir, workdir / "home", ["memorizer_mcp", "filer_mcp"], env=env) as running:
        yield running


def skill(hub: RunningHub, name: str, description: str = "") -> int:
    stored = hub.call(
        "memory_store_skill",
        {"name": name, "description": description, "instructions": f"{name}.", "trigger_type": "manual", **AGENT},
    )
    assert stored["success"], stored
    return int(stored["data"]["skill_id"])


def fact(hub: RunningHub, text: str) -> int:
    stored = hub.call("memory_store_fact", {"fact": text, "category": "preference", **AGENT})
    assert stored["success"], stored
    return int(stored["data"]["fact_id"])


def skill_names(hub: RunningHub) -> dict[str, bool]:
    listed = hub.call("memory_list_skills", {**AGENT, "detail": "full"})["data"]["skills"]
    return {entry["name"]: entry["enabled"] for entry in listed}


def store_then_rename(fields: dict[str, Any]) -> Handler:
    """A model that stores a skill, then renames it by the id the store answered (a small model's "fix what I
    made")."""

    def handler(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        start = max(index for index, message in enumerate(messages) if message.get("role") == "user")
        results = [str(message["content"]) for message in messages[start:] if message.get("role") == "tool"]
        if not results:
            return Reply(tool_calls=(ToolCall("memory_store_skill", fields),))
        if len(results) == 1:
            made = int(re.findall(r'"skill_id": ?(\d+)', results[0])[0])
            return Reply(tool_calls=(ToolCall("memory_update_skill", {"skill_id": made, "name": "Parcel pickup"}),))
        return Reply(content="Done.")

    return handler


def chat(hub: RunningHub, text: str) -> dict[str, Any]:
    with hub.client(timeout=120) as client:
        answer: dict[str, Any] = client.post("/message", json={"message": text}).json()
    assert answer["success"], answer
    return answer


def test_a_change_the_request_did_not_name_waits_names_the_record_and_a_denial_keeps_it(
    hub: RunningHub, llm: FakeOpenAI
) -> None:
    # Not the seeded "Pre-meeting Prep": the hub stores its seed skills as it starts, and a same-named store raced it.
    prep = skill(hub, "Briefing notes", "Gather notes before each meeting")
    llm.reset()
    llm.set_handler(
        obey(
            (
                "memory_store_skill",
                {"name": "Water the plants", "instructions": "Water them.", "trigger_type": "manual"},
            ),
            ("memory_list_skills", {}),
            ("memory_delete_skill", {"skill_id": prep}),
        )
    )
    answer: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: answer.update(chat(hub, "Remind me to water the plants at six")))
    thread.start()
    request = wait_for(lambda: pending_approvals(hub), 60)[0]
    assert request["tool"] == "memory_delete_skill"
    assert "'Briefing notes'" in request["reason"] and "did not mention" in request["reason"]
    with hub.client() as client:
        assert client.post(f"/approvals/{request['id']}", json={"decision": "deny"}).json()["status"] == "denied"
    thread.join(timeout=120)
    assert "The owner denied memory_delete_skill" in answer["reply"]
    assert {"Briefing notes", "Water the plants"} <= set(skill_names(hub))


def test_a_named_record_and_one_the_turn_made_change_without_asking(hub: RunningHub, llm: FakeOpenAI) -> None:
    dentist = skill(hub, "Dentist appointment")
    llm.reset()
    llm.set_handler(obey(("memory_list_skills", {}), ("memory_delete_skill", {"skill_id": dentist})))
    chat(hub, "Cancel my dentist reminder, please")
    assert "Dentist appointment" not in skill_names(hub) and pending_approvals(hub) == []

    llm.reset()
    llm.set_handler(
        store_then_rename({"name": "Errand", "instructions": "Pick up the parcel.", "trigger_type": "manual"})
    )
    chat(hub, "Remind me to pick up the parcel")
    assert "Parcel pickup" in skill_names(hub) and pending_approvals(hub) == []


def test_a_follow_up_changes_the_record_the_owner_named_a_message_before(hub: RunningHub, llm: FakeOpenAI) -> None:
    skill(hub, "Weekly budget review")
    llm.reset()
    llm.set_handler(obey(("memory_list_skills", {})))
    chat(hub, "When does my weekly budget review run?")
    budget = next(s["id"] for s in hub.call("memory_list_skills", AGENT)["data"]["skills"] if "budget" in s["name"])
    llm.reset()
    llm.set_handler(obey(("memory_list_skills", {}), ("memory_update_skill", {"skill_id": budget, "enabled": False})))
    chat(hub, "Pause it")
    assert skill_names(hub)["Weekly budget review"] is False and pending_approvals(hub) == []


def test_forgetting_a_fact_in_other_words_runs_and_an_unrelated_one_waits(hub: RunningHub, llm: FakeOpenAI) -> None:
    seats = fact(hub, "Prefers window seats on long flights")
    tea = fact(hub, "Favourite tea is a smoky lapsang souchong")
    llm.reset()
    llm.set_handler(obey(("memory_list_facts", {}), ("memory_delete_fact", {"fact_id": seats})))
    chat(hub, "Forget that I like window seats")
    assert pending_approvals(hub) == []

    llm.reset()
    llm.set_handler(obey(("memory_list_facts", {}), ("memory_delete_fact", {"fact_id": tea})))
    answer: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: answer.update(chat(hub, "Forget my gym schedule")))
    thread.start()
    request = wait_for(lambda: pending_approvals(hub), 60)[0]
    assert "smoky lapsang souchong" in request["reason"] and request["tool"] == "memory_delete_fact"
    with hub.client() as client:
        assert client.post(f"/approvals/{request['id']}", json={"decision": "deny"}).json()["status"] == "denied"
    thread.join(timeout=120)
    facts = [fact["fact"] for fact in hub.call("memory_list_facts", AGENT)["data"]["facts"]]
    assert "Favourite tea is a smoky lapsang souchong" in facts
    assert "Prefers window seats on long flights" not in facts


def test_a_request_in_another_language_names_the_record_by_meaning(hub: RunningHub, llm: FakeOpenAI) -> None:
    cafe = fact(hub, "The café is closed on Tuesdays")
    llm.reset()
    llm.set_handler(obey(("memory_list_facts", {}), ("memory_delete_fact", {"fact_id": cafe})))
    chat(hub, "Vergiss, dass das Café dienstags zu hat")  # one word of the three in common: not enough by words
    facts = [entry["fact"] for entry in hub.call("memory_list_facts", AGENT)["data"]["facts"]]
    assert "The café is closed on Tuesdays" not in facts and pending_approvals(hub) == []


def test_deleting_a_file_the_request_names_runs_and_another_waits(hub: RunningHub, llm: FakeOpenAI) -> None:
    for path in ("drafts/old-draft.md", "taxes/receipts-2025.md"):
        assert hub.call("filer_create_file", {"path": path, "content": "x"})["success"]
    llm.reset()
    llm.set_handler(
        obey(("filer_list_files", {"recursive": True}), ("filer_delete_file", {"path": "drafts/old-draft.md"}))
    )
    chat(hub, "Trash the old draft")
    assert pending_approvals(hub) == []

    llm.reset()
    llm.set_handler(obey(("filer_delete_file", {"path": "taxes/receipts-2025.md"})))
    answer: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: answer.update(chat(hub, "Tidy up my drafts folder")))
    thread.start()
    request = wait_for(lambda: pending_approvals(hub), 60)[0]
    assert "would delete the file 'taxes/receipts-2025.md'" in request["reason"]
    with hub.client() as client:
        assert client.post(f"/approvals/{request['id']}", json={"decision": "deny"}).json()["status"] == "denied"
    thread.join(timeout=120)
    listed = hub.call("filer_list_files", {"recursive": True})["data"]
    assert "receipts-2025.md" in str(listed) and "old-draft.md" not in str(listed)
