"""Budgets hold before the money is spent: a runaway scheduled skill on the Thinker's HTTP API, against a fake
model that counts its calls, is stopped before the call that could pass its limit, and stays stopped across a
Thinker restart (the ledger is on disk), until the owner's next day.

The Thinker runs in-process (httpx.ASGITransport) with no hub (its tools are not needed: the skill runs with
`noTools`); the model is `openai/fake` on the fake OpenAI server, reached through litellm.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.settings import load_settings
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import free_port
from thinker.app import create_app
from thinker.runtime import ThinkerRuntime
from thinker.settings import ThinkerSettings, load_agent

pytest_plugins = ["tests.fakes.fixtures"]
# The budget guard asks litellm for token counts, output caps and prices; depending on which test imported what
# first, that lazily imports a litellm provider module whose pydantic TypedDict warns at import time. A warning
# of a third party's import, not of this code: not an error here.
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly:UserWarning")

TOKEN = "budget-test-token"
USAGE = {"prompt_tokens": 1_500, "completion_tokens": 500, "total_tokens": 2_000}
"""What every call of the fake model reports spending."""


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def environment(
    fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[dict[str, Any]], ThinkerSettings]:
    def configure(budgets: dict[str, Any]) -> ThinkerSettings:
        agent = {"agentId": "annabelle", "model": "openai/fake", "apiBase": fake_llm.api_base, "budgets": budgets}
        (tmp_path / "agents.json").write_text(json.dumps({"agents": [agent]}))
        monkeypatch.setenv("AGENTS_CONFIG", str(tmp_path / "agents.json"))
        monkeypatch.setenv("ANNABELLE_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("ORCHESTRATOR_URL", f"http://127.0.0.1:{free_port()}")  # nobody there: no tools
        monkeypatch.setenv("ANNABELLE_AGENT_TOKEN", TOKEN)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
        monkeypatch.setenv("UTILITY_MODEL", "off")
        monkeypatch.setenv("THINKER_FACT_EXTRACTION_ENABLED", "false")
        monkeypatch.setenv("ANNABELLE_TIMEZONE", "Europe/Lisbon")
        return load_settings(ThinkerSettings)

    return configure


@asynccontextmanager
async def thinker(settings: ThinkerSettings, clock: FakeClock) -> AsyncIterator[httpx.AsyncClient]:
    """One Thinker process's life: started, serving, closed (a restart is two of these in a row)."""
    runtime = ThinkerRuntime(settings, load_agent(settings, "annabelle"), wall_clock=clock)
    await runtime.start()
    transport = httpx.ASGITransport(app=create_app(runtime))
    try:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://thinker", headers={"X-Annabelle-Token": TOKEN}
        ) as client:
            yield client
    finally:
        await runtime.aclose()


RUNAWAY = {
    "skillId": 42,
    "skillName": "runaway digest",
    "instructions": "Summarise everything again.",
    "noTools": True,
    "dailyTokens": 10_000,
}


async def run_skill(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.post("/execute-skill", json=RUNAWAY)
    assert response.status_code == 200
    return response.json()


async def test_a_runaway_skill_is_stopped_before_the_call_that_could_pass_its_limit_even_after_a_restart(
    environment: Callable[[dict[str, Any]], ThinkerSettings], fake_llm: FakeOpenAI
) -> None:
    settings = environment({})
    clock = FakeClock(datetime(2026, 3, 4, 22, 0, tzinfo=UTC))  # 22:00 in Lisbon
    fake_llm.set_handler(lambda body: Reply.text("Done again.", usage=USAGE))
    answers = []
    async with thinker(settings, clock) as client:
        for _ in range(10):  # the scheduler firing every few minutes
            answers.append(await run_skill(client))
            if answers[-1].get("errorCode"):
                break
        status = (await client.get("/cost-status")).json()
    made = len(fake_llm.requests)
    stop = answers[-1]
    # Each run made one call; the last run made none: its call could have passed 10,000 tokens.
    assert made == len(answers) - 1 and made >= 1
    assert stop["success"] is False and stop["errorCode"] == "BUDGET_EXCEEDED"
    budget = stop["budget"]
    assert (budget["scope"], budget["limit"], budget["skill"], budget["notify"]) == (
        "skill",
        "dailyTokens",
        "runaway digest",
        True,
    )
    assert budget["used"] == made * 2_000 <= 10_000 < budget["used"] + budget["estimate"]
    assert stop["response"] == stop["error"] and stop["error"].startswith(
        "Stopped before calling the model: the daily budget of the skill 'runaway digest' (10,000 tokens)"
    )
    assert stop["error"].endswith("It resets at 00:00 Europe/Lisbon.")
    [line] = status["budgets"]
    assert (line["skill"], line["used"], line["limitValue"]) == ("runaway digest", made * 2_000, 10_000)

    # A restart forgets nothing: the next run is refused without a call, and the owner is not told again.
    async with thinker(settings, clock) as client:
        again = await run_skill(client)
        assert len(fake_llm.requests) == made
        assert again["errorCode"] == "BUDGET_EXCEEDED" and again["budget"].get("notify", False) is False

        clock.now += timedelta(hours=2, minutes=1)  # 00:01 in Lisbon: a new day for the skill
        fresh = await run_skill(client)
        assert fresh["success"] is True and len(fake_llm.requests) == made + 1


async def test_a_chat_turn_past_the_agents_daily_budget_ends_with_one_sentence_and_no_call(
    environment: Callable[[dict[str, Any]], ThinkerSettings], fake_llm: FakeOpenAI
) -> None:
    settings = environment({"dailyTokens": 7_000, "monthlyUsd": 5})
    clock = FakeClock(datetime(2026, 3, 4, 12, 0, tzinfo=UTC))
    # The largest answer of openai/fake is 4,096 tokens: the first call fits in 7,000, the second (2,950 spent) not.
    fake_llm.set_handler(lambda body: Reply.text("Hello!", usage={"prompt_tokens": 2_900, "completion_tokens": 50}))
    message = {"id": "m", "chatId": "c", "senderId": "u", "text": "hi", "date": "2026-03-04", "channel": "http"}
    async with thinker(settings, clock) as client:
        first = (await client.post("/process-message", json=message)).json()
        second = (await client.post("/process-message", json=message)).json()
        status = (await client.get("/cost-status")).json()
    assert first["success"] is True and len(fake_llm.requests) == 1
    assert second["errorCode"] == "BUDGET_EXCEEDED" and second["budget"]["limit"] == "dailyTokens"
    assert second["response"].count(".") <= 3 and "the agent annabelle (7,000 tokens)" in second["response"]
    lines = {line["limit"]: line for line in status["budgets"]}
    assert lines["dailyTokens"]["used"] == 2_950
    # openai/fake has no price litellm knows: the USD limit is shown as not judged, with a sentence saying why.
    assert lines["monthlyUsd"]["priced"] is False and "no price" in status["budgetNote"]
