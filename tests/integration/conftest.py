"""Fixtures of the tests that start the whole stack: one scripted model and one fake Bot API per test module.

A module that needs them set up differently defines its own fixture of the same name, which takes precedence."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.telegram_server import FakeTelegram


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(max_wait=0.2) as server:
        yield server
