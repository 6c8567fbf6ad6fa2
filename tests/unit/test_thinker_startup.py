"""The Thinker's app before and after start-up, in-process, with start-up replaced (no hub, no model)."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import httpx
import pytest

from shared.agents import AgentDefinition
from shared.settings import load_settings
from thinker.app import create_app
from thinker.runtime import ThinkerRuntime
from thinker.settings import ThinkerSettings


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch, annabelle_home: Path) -> ThinkerRuntime:
    monkeypatch.setenv("ANNABELLE_AGENT_TOKEN", "agent-token")
    monkeypatch.setenv("ORCHESTRATOR_URL", "http://127.0.0.1:9")
    settings = load_settings(ThinkerSettings)
    return ThinkerRuntime(settings, AgentDefinition(agentId="annabelle"))


async def test_health_says_initializing_until_start_up_is_done(
    runtime: ThinkerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = asyncio.Event()

    async def slow_start() -> None:
        await release.wait()
        runtime.state.ready = True

    monkeypatch.setattr(runtime, "start", slow_start)
    app = create_app(runtime)
    headers = {"X-Annabelle-Token": "agent-token"}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", headers=headers) as client,
    ):
        response = await client.get("/health")
        assert response.status_code == 503
        assert response.json() == {"status": "initializing", "service": "thinker", "agentId": "annabelle"}
        busy = await client.post("/process-message", json={})
        assert busy.status_code == 503 and "still starting" in busy.json()["error"]
        release.set()
        await asyncio.sleep(0)  # let the start-up task finish (a yield, not a wait)
        assert (await client.get("/health")).json()["status"] == "ok"


async def test_a_failed_start_is_reported_by_health(runtime: ThinkerRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken_start() -> None:
        raise OSError("disk full")

    monkeypatch.setattr(runtime, "start", broken_start)
    app = create_app(runtime)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client,
    ):
        await asyncio.sleep(0)
        body = (await client.get("/health")).json()
        assert body["status"] == "failed" and body["error"] == "OSError: disk full"
        answer = await client.post("/execute-skill", json={}, headers={"X-Annabelle-Token": "agent-token"})
        assert answer.status_code == 503 and "failed to start (OSError: disk full)" in answer.json()["error"]


async def test_the_token_is_checked_before_readiness(runtime: ThinkerRuntime) -> None:
    app = create_app(runtime)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        assert (await client.post("/process-message", json={})).status_code == 401
        assert (await client.get("/cost-status", headers={"X-Annabelle-Token": "agent-token"})).status_code == 200
    await runtime.aclose()


async def test_health_is_ok_at_once_while_the_model_client_loads_and_a_turn_waits_for_it(
    runtime: ThinkerRuntime, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = threading.Event()
    monkeypatch.setattr("thinker.runtime.load_litellm", lambda: loaded.wait(10))

    async def no_warm_up(model: str) -> None:
        return None

    monkeypatch.setattr("thinker.runtime.warm_up", no_warm_up)
    app = create_app(runtime)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client,
    ):
        await asyncio.sleep(0)  # the start-up task runs: persona file, then ready
        assert (await client.get("/health")).json()["status"] == "ok"
        with caplog.at_level(logging.INFO, logger="thinker.runtime"):
            turn = asyncio.create_task(runtime.until_warm())
            await asyncio.sleep(0)
            assert not turn.done()
            assert "message waits for start-up" in caplog.text
            loaded.set()
            await asyncio.wait_for(turn, 10)
