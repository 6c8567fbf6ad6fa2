"""Every setting is declared once, in one settings class, and documented once, in the README's configuration table.

The classes are read from the source (every class built on a `*Settings` base, and its annotated fields), so a
variable added anywhere and not documented, or documented and no longer read, fails here.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCE_PACKAGES = sorted(
    path.parent for path in REPO_ROOT.glob("*/__init__.py") if path.parent.name not in {"tests", "benchmarks"}
)
# Read by something other than a settings class, documented in the same table.
NOT_IN_A_SETTINGS_CLASS = {
    "ANNABELLE_ENV_FILE",  # which .env file the settings read (shared/settings.py)
    "ANNABELLE_AGENTS_FILE",  # read by docker compose, not by Annabelle
    "ANNABELLE_WITH_BROWSER",  # a docker compose build argument
    "<MCPNAME>_MCP_ENABLED",  # one per discovered MCP (orchestrator/discovery.py)
}


def declared_settings() -> dict[str, list[str]]:
    """Environment variable → the classes (`module:Class`) that declare a field for it."""
    found: dict[str, list[str]] = defaultdict(list)
    for package in SOURCE_PACKAGES:
        for path in package.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = [ast.unparse(base) for base in node.bases]
                if not any(base.endswith("Settings") for base in bases):
                    continue
                where = f"{path.relative_to(REPO_ROOT)}:{node.name}"
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        name = item.target.id
                        if not name.startswith("_") and name != "model_config":
                            found[name.upper()].append(where)
    return dict(found)


def documented_settings() -> list[str]:
    """The variables in the first column of the README's configuration table, in order."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first_cell = line.split("|")[1]
        names += re.findall(r"`([A-Z<][A-Z0-9_<>]*)`", first_cell)
    return names


def test_each_variable_is_declared_in_one_settings_class() -> None:
    twice = {name: classes for name, classes in declared_settings().items() if len(classes) > 1}
    assert twice == {}


def test_the_readme_table_lists_every_variable_the_settings_classes_read() -> None:
    undocumented = sorted(set(declared_settings()) - set(documented_settings()))
    assert undocumented == []


def test_the_readme_table_lists_nothing_that_no_settings_class_reads() -> None:
    stale = sorted(set(documented_settings()) - set(declared_settings()) - NOT_IN_A_SETTINGS_CLASS)
    assert stale == []


def test_the_readme_table_lists_each_variable_once() -> None:
    names = documented_settings()
    assert sorted({name for name in names if names.count(name) > 1}) == []
