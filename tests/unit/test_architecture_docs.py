"""The architecture pages name modules that exist, and the hub's and the Thinker's pages name every module they have.

A module that is renamed, split or added without its page following fails here, naming the page and the module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS = REPO_ROOT / "docs"
TOP_LEVEL = [*sorted(path.parent.name for path in REPO_ROOT.glob("*/__init__.py")), "docs"]
# A repository path in backticks: `orchestrator/hub.py`, `thinker/selection/` (not a glob like `*_mcp/`, nor a
# path relative to a package, like a table's `contracts/` under `shared/`).
REPO_PATH = re.compile(rf"`((?:{'|'.join(TOP_LEVEL)})/(?:[a-z0-9_]+/)*(?:[a-z0-9_]+\.(?:py|json|md))?)`")
PACKAGE_PAGES = {"orchestrator": "orchestrator.md", "thinker": "thinker.md"}


def repo_paths(page: Path) -> set[str]:
    return set(REPO_PATH.findall(page.read_text(encoding="utf-8")))


def test_the_architecture_page_names_only_paths_that_exist() -> None:
    named = repo_paths(DOCS / "architecture.md")
    assert len(named) > 40  # the reading below found the page's paths, not nothing
    assert sorted(path for path in named if not (REPO_ROOT / path).exists()) == []


def modules_of(package: str) -> list[str]:
    """The package's modules and subpackages, as its page names them (`hub.py`, `agents/`)."""
    folder = REPO_ROOT / package
    files = [path.name for path in folder.glob("*.py") if path.name != "__init__.py"]
    packages = [f"{path.parent.name}/" for path in folder.glob("*/__init__.py")]
    return sorted(files + packages)


@pytest.mark.parametrize(("package", "page"), sorted(PACKAGE_PAGES.items()))
def test_the_package_page_names_every_module_of_the_package(package: str, page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    unnamed = [module for module in modules_of(package) if f"`{module}`" not in text]
    assert unnamed == []


@pytest.mark.parametrize(("package", "page"), sorted(PACKAGE_PAGES.items()))
def test_the_package_pages_module_table_names_only_modules_that_exist(package: str, page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    table = text.split("| module | job", 1)[1].split("\n\n", 1)[0]
    first_cells = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    named = [name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)]
    assert len(named) > 10
    assert [name for name in named if not (REPO_ROOT / package / name).exists()] == []
