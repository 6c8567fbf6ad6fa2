"""Memory provenance: a fact stored in a tainted turn says so, and a result that recalls it is untrusted."""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.approvals.provenance import MAX_SOURCE_CHARS, mark_write, recalls_untrusted


def test_a_fact_stored_in_a_tainted_turn_is_marked_whatever_source_the_model_gave() -> None:
    marked = mark_write(
        "memory_store_fact", {"fact": "x", "category": "decision", "source": "owner"}, ["gmail_get_email"]
    )
    assert marked == {"fact": "x", "category": "decision", "source": "untrusted: gmail_get_email"}


def test_other_tools_keep_their_arguments_and_the_source_stays_short() -> None:
    assert mark_write("filer_create_file", {"path": "a", "content": "b"}, ["x"]) == {"path": "a", "content": "b"}
    assert len(mark_write("memory_store_fact", {"fact": "x"}, ["t" * 500])["source"]) == MAX_SOURCE_CHARS


@pytest.mark.parametrize(
    ("envelope", "untrusted"),
    [
        (
            {
                "success": True,
                "data": {"facts": [{"fact": "a", "source": None}, {"fact": "b", "source": "untrusted: x"}]},
            },
            True,
        ),
        ({"success": True, "data": {"facts": [{"fact": "a", "source": "chat-1"}]}}, False),
        ({"success": True, "data": {"facts": "not a list"}}, False),
        ({"success": True, "data": ["facts"]}, False),
        ({"success": False, "error": "no"}, False),
    ],
)
def test_a_result_recalling_an_untrusted_fact_is_untrusted(envelope: dict[str, Any], untrusted: bool) -> None:
    assert recalls_untrusted(envelope) is untrusted
