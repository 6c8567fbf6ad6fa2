"""Fixtures for fakes of external services. A test module that needs them declares

    pytest_plugins = ["tests.fakes.fixtures"]

and takes the fixture as an argument (`def test_x(fake_llm: FakeOpenAI)`). Importing the fixture by name works
too, but ruff then reports every test argument of that name as a redefinition (F811).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A fresh scripted OpenAI-compatible server on 127.0.0.1 (see tests/fakes/openai_server.py)."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A fresh fake Ollama embeddings server on 127.0.0.1 (see tests/fakes/ollama_server.py)."""
    with FakeOllama() as server:
        yield server
