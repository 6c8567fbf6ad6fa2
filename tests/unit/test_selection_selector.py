"""`ToolSelector` with the deterministic fake embedder: what it embeds, when, and what happens when it fails."""

from __future__ import annotations

import pytest

import thinker.selection as selection_package
from shared.embeddings import EmbeddingError
from tests.fakes.embedder import FakeEmbedder
from thinker.selection import CORE_TOOLS, McpInfo, SelectionConfig, ToolInfo, ToolSelector
from thinker.selection._pipeline import tool_text

TOOLS = [
    ToolInfo("files_read_file", "Read a file from the workspace.", {"properties": {"path": {}}}, "files"),
    ToolInfo("files_delete_file", "Delete a file from the workspace.", {"properties": {"path": {}}}, "files"),
    ToolInfo("mail_send_email", "Send an email to someone.", {"properties": {"to": {}}}, "mail"),
    ToolInfo("search_memories", "Search what you remember.", {}, None),
]
MCPS = [McpInfo("files", "Files", "Storage", ("workspace",)), McpInfo("mail", "Mail", "Communication", ())]


def embedded_texts(embedder: FakeEmbedder) -> list[str]:
    return [text for batch in embedder.calls for text in batch]


async def test_refresh_embeds_each_candidate_once_and_never_the_core_tools() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    assert embedder.calls == [[tool_text(t) for t in TOOLS[:3]]]
    assert selector.tool_names == ("files_read_file", "files_delete_file", "mail_send_email")

    await selector.refresh(TOOLS, MCPS)
    assert len(embedder.calls) == 1


async def test_refresh_re_embeds_only_new_or_changed_tool_texts() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    changed = ToolInfo("mail_send_email", "Send an email, with attachments.", {}, "mail")
    added = ToolInfo("mail_list_emails", "List the inbox.", {}, "mail")
    await selector.refresh([TOOLS[0], TOOLS[1], changed, added], MCPS)
    assert embedder.calls[1:] == [[tool_text(changed), tool_text(added)]]

    # Removing a tool embeds nothing; bringing back a forgotten text embeds it again.
    await selector.refresh([TOOLS[0]], MCPS)
    assert len(embedder.calls) == 2
    await selector.refresh([TOOLS[0], TOOLS[1]], MCPS)
    assert embedder.calls[2:] == [[tool_text(TOOLS[1])]]


async def test_tools_sharing_a_text_are_embedded_once() -> None:
    embedder = FakeEmbedder()
    twins = [ToolInfo("a_x", "Same.", {}, "a"), ToolInfo("a_x", "Same.", {}, "a")]
    await ToolSelector(SelectionConfig(), embedder).refresh(twins, [])
    assert embedder.calls == [["a_x: Same."]]


async def test_select_embeds_only_the_message() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    selection = await selector.select(
        "please read the file notes.txt",
        recent_user_messages=["earlier question"],
        recent_assistant_messages=["earlier answer"],
    )
    assert embedder.calls[1:] == [["please read the file notes.txt"]]
    assert selection.method == "hybrid"
    assert selection.names[: len(CORE_TOOLS)] == CORE_TOOLS
    assert selection.names[len(CORE_TOOLS)] == "files_read_file"
    assert selection.top_score is not None and 0.0 < selection.top_score <= 1.0


async def test_without_an_embedder_selection_uses_words_and_routes() -> None:
    selector = ToolSelector(SelectionConfig(), None)
    await selector.refresh(TOOLS, MCPS)
    selection = await selector.select("delete that file from my workspace")
    assert selection.method == "regex"
    assert selection.top_score is None
    assert selection.names[len(CORE_TOOLS)] == "files_delete_file"


async def test_before_any_refresh_only_core_tools_are_selected() -> None:
    embedder = FakeEmbedder()
    selection = await ToolSelector(SelectionConfig(), embedder).select("read the file")
    assert selection.names == CORE_TOOLS
    assert embedder.calls == [["read the file"]]


async def test_a_failed_refresh_falls_back_to_regex_and_recovers_later(caplog: pytest.LogCaptureFixture) -> None:
    embedder = FakeEmbedder()
    embedder.fail_with = EmbeddingError("embedding server down")
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    assert "tool embeddings unavailable" in caplog.text

    assert (await selector.select("read the file")).method == "regex"

    embedder.fail_with = None
    recovered = await selector.select("read the file")
    assert recovered.method == "hybrid"
    # The missing tool vectors were embedded before the message.
    assert embedder.calls[-2:] == [[tool_text(t) for t in TOOLS[:3]], ["read the file"]]


async def test_a_failed_message_embedding_selects_without_it(caplog: pytest.LogCaptureFixture) -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    embedder.fail_with = EmbeddingError("timeout")
    selection = await selector.select("read the file")
    assert selection.method == "regex"
    assert "files_read_file" in selection.names
    assert "message embedding failed" in caplog.text


async def test_allowed_and_history_reach_the_pipeline() -> None:
    selector = ToolSelector(SelectionConfig(), FakeEmbedder())
    await selector.refresh(TOOLS, MCPS)
    selection = await selector.select(
        "hello",
        recent_tools_used=[["mail_send_email"]],
        playbook_tools=["files_read_file"],
        allowed=lambda name: name != "get_status",
    )
    assert "get_status" not in selection.names
    assert selection.names[-2:] == ("files_read_file", "mail_send_email")


def test_the_public_surface_is_pinned() -> None:
    assert sorted(selection_package.__all__) == [
        "CORE_TOOLS",
        "McpInfo",
        "Playbook",
        "Selection",
        "SelectionConfig",
        "ToolInfo",
        "ToolSelector",
        "match_playbooks",
        "required_selection",
    ]
