"""Pure Memorizer modules: dot-notation profile updates, path confinement, the vector index, timestamps,
export/import formats, and reading the utility model's answers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memorizer_mcp import extraction, synthesis
from memorizer_mcp.dotpath import PathError, parse_path, set_path
from memorizer_mcp.llm import parse_json_object
from memorizer_mcp.paths import confine
from memorizer_mcp.profiles import default_profile
from memorizer_mcp.timestamps import db_moment
from memorizer_mcp.transfer import ImportFormatError, fact_line, parse_import, parse_markdown_facts
from memorizer_mcp.vector_index import AgentMatrix, VectorIndex
from shared.mcp_tools import NotAllowed

# -- dot notation --------------------------------------------------------------------------------------------------


def test_a_dotted_path_sets_a_nested_key_and_creates_missing_objects() -> None:
    profile = default_profile()
    set_path(profile, "user_info.name", "Ana")
    set_path(profile, "persona.tone.style", "brief")
    assert profile["user_info"]["name"] == "Ana"
    assert profile["persona"] == {"tone": {"style": "brief"}}


def test_list_indexes_pad_with_nulls_and_create_objects_on_the_way() -> None:
    profile = default_profile()
    set_path(profile, "preferences.tools[2]", "vim")
    set_path(profile, "current_projects[1].name", "Garden")
    assert profile["preferences"]["tools"] == [None, None, "vim"]
    assert profile["current_projects"] == [None, {"name": "Garden"}]


def test_a_null_value_is_replaced_by_the_object_a_deeper_path_needs() -> None:
    profile = default_profile()
    set_path(profile, "user_info.name.first", "Ana")
    assert profile["user_info"]["name"] == {"first": "Ana"}


@pytest.mark.parametrize(
    "path",
    [
        "",
        ".",
        "a..b",
        "a.",
        "user info",
        "a[b]",
        "a[-1]",
        "a[1001]",
        "__proto__ x",
        "a/b",
        "a.b[1][2]",
        "x." * 17 + "y",
    ],
)
def test_malformed_paths_are_refused(path: str) -> None:
    with pytest.raises(PathError):
        parse_path(path)


def test_a_path_through_a_list_or_value_is_refused_and_the_document_is_unchanged() -> None:
    profile = default_profile()
    profile["preferences"]["tools"] = ["vim"]
    before = json.dumps(profile)
    with pytest.raises(PathError, match=r"preferences\.tools' is a list"):
        set_path(profile, "preferences.tools.favourite", "vim")
    profile["user_info"]["name"] = "Ana"
    with pytest.raises(PathError, match="is a value"):
        set_path(profile, "user_info.name[0]", "A")
    profile["user_info"]["name"] = None
    assert json.dumps(profile) == before


# -- path confinement ----------------------------------------------------------------------------------------------


@pytest.fixture
def roots(tmp_path: Path) -> list[Path]:
    export, workspace = tmp_path / "export", tmp_path / "ws"
    export.mkdir()
    workspace.mkdir()
    return [export, workspace]


def test_relative_paths_are_taken_below_the_export_folder(roots: list[Path]) -> None:
    assert confine("annabelle/facts/all-facts.json", roots) == roots[0].resolve() / "annabelle/facts/all-facts.json"


def test_absolute_paths_inside_either_root_are_accepted(roots: list[Path]) -> None:
    inside = roots[1] / "memory.json"
    assert confine(str(inside), roots) == inside.resolve()


@pytest.mark.parametrize("raw", ["../x.json", "a/../../x", "/etc/passwd", "~/x.json", "", "  ", "a\x00b"])
def test_escapes_are_refused(roots: list[Path], raw: str) -> None:
    with pytest.raises(NotAllowed):
        confine(raw, roots)


def test_a_sibling_folder_with_a_common_prefix_is_outside(roots: list[Path]) -> None:
    evil = roots[0].parent / "export-evil"
    evil.mkdir()
    with pytest.raises(NotAllowed):
        confine(str(evil / "x.json"), roots)


def test_a_symlink_pointing_out_of_the_roots_is_refused(roots: list[Path], tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text("{}", encoding="utf-8")
    os.symlink(outside, roots[0] / "link")
    with pytest.raises(NotAllowed):
        confine("link/secret.json", roots)


# -- vector index --------------------------------------------------------------------------------------------------


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_the_matrix_finds_the_nearest_vectors_best_first() -> None:
    matrix = AgentMatrix(2, np.array([1, 2, 3]), np.stack([unit(1, 0), unit(0, 1), unit(1, 1)]))
    hits = matrix.top_k(unit(1, 0.1), 2)
    assert [fact_id for fact_id, _ in hits] == [1, 3]
    assert hits[0][1] == pytest.approx(float(unit(1, 0) @ unit(1, 0.1)))


def test_upsert_grows_replaces_and_remove_keeps_the_matrix_dense() -> None:
    matrix = AgentMatrix(2, np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.float32))
    for fact_id in range(1, 601):
        matrix.upsert(fact_id, unit(1, fact_id))
    matrix.upsert(5, unit(-1, 0))
    for fact_id in range(100, 600):
        matrix.remove(fact_id)
    matrix.remove(12345)
    assert len(matrix) == 100
    assert 5 in matrix and 150 not in matrix
    assert matrix.top_k(unit(-1, 0), 1)[0][0] == 5
    assert {fact_id for fact_id, _ in matrix.top_k(unit(1, 1), 1000)} == {*range(1, 100), 600}


def test_an_index_loads_once_per_key_and_agent_and_stays_in_step() -> None:
    index = VectorIndex()
    loads: list[str] = []

    def loader(agent: str) -> Any:
        def load() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            loads.append(agent)
            return np.array([1]), np.stack([unit(1, 0)]), np.array([True])

        return load

    index.upsert("k", "ana", [(9, unit(0, 1), True)])  # not loaded yet: ignored, the load will read the store
    assert index.search("k", "ana", 2, unit(1, 0), 5, loader("ana")) == [(1, pytest.approx(1.0))]
    index.upsert("k", "ana", [(2, unit(0, 1), True)])
    assert [i for i, _ in index.search("k", "ana", 2, unit(0, 1), 5, loader("ana"))] == [2, 1]
    assert index.search("k", "bob", 2, unit(0, 1), 5, loader("bob"))[0][0] == 1
    index.remove("ana", [2])
    assert [i for i, _ in index.search("k", "ana", 2, unit(0, 1), 5, loader("ana"))] == [1]
    assert loads == ["ana", "bob"]


def test_facts_no_longer_current_are_searched_only_when_history_is_asked_for() -> None:
    index = VectorIndex()
    index.search("k", "ana", 2, unit(1, 0), 1, lambda: (np.array([1]), np.stack([unit(1, 0)]), np.array([True])))
    index.upsert("k", "ana", [(2, unit(1, 0.1), True), (3, unit(1, 0.2), False)])
    assert [i for i, _ in index.search("k", "ana", 2, unit(1, 0), 5, lambda: None)] == [1, 2]  # type: ignore[arg-type]
    index.set_current("ana", [1], False)
    assert [i for i, _ in index.search("k", "ana", 2, unit(1, 0), 5, lambda: None)] == [2]  # type: ignore[arg-type]
    everything = index.search("k", "ana", 2, unit(1, 0), 5, lambda: None, current_only=False)  # type: ignore[arg-type]
    assert [i for i, _ in everything] == [1, 2, 3]


# -- timestamps ----------------------------------------------------------------------------------------------------


def test_dates_become_utc_database_timestamps() -> None:
    assert db_moment("2026-11-21") == "2026-11-21 00:00:00"
    assert db_moment("2026-11-21", end_of_day=True) == "2026-11-21 23:59:59"
    assert db_moment("2026-11-21T10:00:00+02:00") == "2026-11-21 08:00:00"
    assert db_moment("2026-11-21T10:00:00Z") == "2026-11-21 10:00:00"
    assert db_moment("2026-11-21 10:00:00") == "2026-11-21 10:00:00"
    with pytest.raises(ValueError, match="not a date"):
        db_moment("last tuesday")


# -- export and import formats -------------------------------------------------------------------------------------


def test_markdown_fact_lines_read_back_even_across_several_lines() -> None:
    text = "# Preferences I've Learned\n\n" + "\n".join(
        [fact_line("Likes tea", "2026-11-21 10:00:00"), fact_line("Two\nlines - here", None)]
    )
    assert "- Likes tea (learned November 21, 2026)" in text
    assert [(f.fact, f.category) for f in parse_markdown_facts("preference", text)] == [
        ("Likes tea", "preference"),
        ("Two\nlines - here", "preference"),
    ]


def test_import_reads_a_profile_object_or_a_list_of_facts() -> None:
    assert parse_import("profile.json", '{"user_info": {"name": "Ana"}}').profile == {"user_info": {"name": "Ana"}}
    data = parse_import(
        "all-facts.json",
        json.dumps(
            [
                {"fact": "Likes tea", "category": "preference", "confidence": 0.8},
                {"fact": "x", "category": "error"},
                {"fact": "   ", "category": "pattern"},
                "not an object",
            ]
        ),
    )
    assert [(f.fact, f.confidence) for f in data.facts] == [("Likes tea", 0.8)]
    assert len(data.skipped) == 3
    assert parse_import("x.json", '{"facts": [{"fact": "A", "category": "decision"}]}').facts[0].fact == "A"


@pytest.mark.parametrize(("name", "text"), [("x.json", "{nope"), ("x.json", "42"), ("profile.md", "# Me")])
def test_unreadable_import_files_are_refused_with_what_is_expected(name: str, text: str) -> None:
    with pytest.raises(ImportFormatError):
        parse_import(name, text)


# -- the utility model's answers -----------------------------------------------------------------------------------


def test_json_is_found_inside_fences_and_chatter() -> None:
    assert parse_json_object('Sure!\n```json\n{"facts": []}\n```') == {"facts": []}
    assert parse_json_object("no json here") is None
    assert parse_json_object("[1, 2]") is None


def test_extraction_keeps_confident_well_formed_facts_up_to_three() -> None:
    answer = json.dumps(
        {
            "facts": [
                {"fact": "Sister is Ana", "category": "contact", "confidence": 0.95},
                {"fact": "Maybe likes jazz", "category": "preference", "confidence": 0.5},
                {"fact": "Lives in Porto", "category": "location", "confidence": 0.9},
                {"fact": "Works as a nurse", "category": "background", "confidence": True},
                {"fact": "Runs on Sundays", "category": "pattern", "confidence": 0.8},
                {"fact": "Chose Python", "category": "decision", "confidence": 1},
                {"fact": "Building a shed", "category": "project", "confidence": 0.9},
            ]
        }
    )
    facts = extraction.parse_answer(answer)
    assert facts is not None
    assert [f.fact for f in facts] == ["Sister is Ana", "Runs on Sundays", "Chose Python"]
    assert extraction.parse_answer("I found nothing") is None


def test_short_exchanges_are_not_sent_to_the_model() -> None:
    assert not extraction.long_enough("hi", "hello!")
    assert extraction.long_enough("My sister Ana lives in Porto now", "Good to know about Ana!")


def test_a_synthesis_plan_keeps_only_actions_on_the_facts_shown() -> None:
    answer = json.dumps(
        {
            "actions": [
                {"type": "merge", "keep_id": 1, "delete_ids": [2, 99, 1], "updated_text": "Likes green tea daily"},
                {"type": "update", "fact_id": 99, "new_text": "elsewhere", "reason": "x"},
                {"type": "update", "fact_id": 2, "new_text": "too late", "reason": "x"},
                {"type": "update", "fact_id": 3, "new_text": "password: hunter2", "reason": "x"},
                {"type": "delete", "fact_id": 4, "reason": "stale"},
                {"type": "explode", "fact_id": 3},
            ],
            "summary": "Merged tea facts",
        }
    )
    plan = synthesis.plan_actions(answer, {1, 2, 3, 4})
    assert plan is not None
    assert plan.updates == {1: "Likes green tea daily"}
    assert plan.deletes == {2, 4}
    assert plan.merges == 1
    assert plan.summary == "Merged tea facts"
    assert len(plan.dropped) == 4
    assert not any("hunter2" in reason for reason in plan.dropped)
    assert synthesis.plan_actions("nothing", {1}) is None
