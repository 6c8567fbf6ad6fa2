"""Find the MCP packages to run: every `*_mcp/manifest.json` under the MCPs root, minus the disabled ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from shared.manifest import MANIFEST_FILENAME, ManifestError, McpManifest, load_manifest

_FALSE = {"false", "0", "no", "off"}
_TRUE = {"true", "1", "yes", "on", ""}


@dataclass(frozen=True)
class McpSpec:
    """One MCP package found on disk."""

    manifest: McpManifest
    package: str
    directory: Path
    external: bool = False  # from external-mcps.json, not a first-party package

    @property
    def name(self) -> str:
        return self.manifest.mcpName


@dataclass
class Discovery:
    specs: list[McpSpec] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def guardian(self) -> McpSpec | None:
        return next((spec for spec in self.specs if spec.manifest.role == "guardian"), None)

    @property
    def others(self) -> list[McpSpec]:
        return [spec for spec in self.specs if spec.manifest.role != "guardian"]


def discover(root: Path, environ: Mapping[str, str]) -> Discovery:
    """Read every manifest under `root`; `<MCPNAME>_MCP_ENABLED=false` leaves an MCP out."""
    found = Discovery()
    seen: dict[str, Path] = {}
    for manifest_path in sorted(root.glob(f"*_mcp/{MANIFEST_FILENAME}")):
        try:
            manifest = load_manifest(manifest_path)
        except ManifestError as exc:
            found.problems.append(str(exc))
            continue
        if manifest.mcpName in seen:
            found.problems.append(
                f"{manifest_path}: mcpName {manifest.mcpName!r} is already used by {seen[manifest.mcpName]}; skipped"
            )
            continue
        seen[manifest.mcpName] = manifest_path
        variable = manifest.env_enabled_variable
        flag = environ.get(variable, "true").strip().lower()
        if flag in _FALSE:
            found.disabled.append(manifest.mcpName)
            continue
        if flag not in _TRUE:
            found.problems.append(f"{variable}={environ[variable]!r} is not true or false; {manifest.mcpName} skipped")
            continue
        found.specs.append(McpSpec(manifest, manifest_path.parent.name, manifest_path.parent))
    return found
