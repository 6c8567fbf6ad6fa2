"""The project's import graph has no circles, and the ground floor imports nothing above it.

Every import counts: module level, inside functions, and under `TYPE_CHECKING` alike. An import moved into a
function or behind `TYPE_CHECKING` to dodge a circle is still a circle for the reader: the two modules cannot be
understood (or moved) one without the other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(
    path.parent.name
    for path in REPO_ROOT.glob("*/__init__.py")
    if path.parent.name not in {"tests", "benchmarks"} and not path.parent.name.startswith(".")
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (REPO_ROOT / package).rglob("*.py"):
            modules[module_name(path)] = path
    return modules


def imported_names(path: Path, module: str) -> Iterator[str]:
    """Every module name `path` imports, resolved (relative imports included)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            yield base
            # `from package import submodule` imports the submodule.
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {name for name in imported_names(path, module) if name in modules and name != module}
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_project_has_no_import_circles() -> None:
    found = circles(import_graph())
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_circle_detection_finds_loops_and_only_loops(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(graph) == expected


def test_shared_imports_no_other_part_of_the_project() -> None:
    graph = import_graph()
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "shared"
        for target in targets
        if target.split(".")[0] != "shared"
    )
    assert upward == []


def test_mcp_packages_import_only_shared_and_themselves() -> None:
    graph = import_graph()
    crossing = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0].endswith("_mcp")
        for target in targets
        if target.split(".")[0] not in {"shared", module.split(".")[0]}
    )
    assert crossing == []


def test_the_hub_and_the_thinker_never_import_each_other() -> None:
    graph = import_graph()
    crossing = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if {module.split(".")[0], target.split(".")[0]} == {"orchestrator", "thinker"}
    )
    assert crossing == []
