"""No tool call reaches an MCP except through `Hub.call`: the code is read for every place that calls an MCP.

`ManagedMcp.call_tool` is the last step before the wire. Only two modules may call it: `endpoint.py` (the route
`Hub.call` takes to every MCP) and `guardian.py` (the scan inside that route). A feature that called it directly
would skip policy, Guardian, the error mapping and the trace; this test names the file that does.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ALLOWED_CALLERS = {
    "orchestrator/endpoint.py",
    "orchestrator/guardian.py",
    "orchestrator/mcp_client.py",  # ManagedMcp.call_tool itself, handing the call to the SDK's session
}
ENDPOINT_BUILDERS = {"orchestrator/hub.py"}


def places(attribute: str | None = None, name: str | None = None) -> set[str]:
    found: set[str] = set()
    for path in (REPO_ROOT / "orchestrator").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (attribute and isinstance(func, ast.Attribute) and func.attr == attribute) or (
                name and isinstance(func, ast.Name) and func.id == name
            ):
                found.add(str(path.relative_to(REPO_ROOT)))
    return found


def test_only_the_call_path_calls_an_mcp_tool() -> None:
    assert places(attribute="call_tool") - ALLOWED_CALLERS == set()


def test_only_the_hub_builds_endpoints_to_mcps() -> None:
    assert places(name="DirectEndpoint") - ENDPOINT_BUILDERS == set()
