"""`manifest.json`: how an MCP package tells the hub what it is.

Every top-level `*_mcp/` package of the repository ships one. Only fields that change behaviour exist;
unknown fields are rejected so a typo does not silently do nothing.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.validation import load_json_model

MANIFEST_FILENAME = "manifest.json"
_VARIABLE = r"^[A-Z][A-Z0-9_]*$"


class ManifestError(Exception):
    """A manifest file is missing fields or has wrong values; the message names the file and the fields."""


class GuardianScan(BaseModel):
    """Which directions Guardian scans for this MCP, and what it may do with what it finds.

    `input` is `true`/`false` or a list of tool-name globs (`["store_*", "update_*"]`): only matching tools
    get their arguments scanned, e.g. Memorizer's writes. `mode` is `block` (default: content Guardian is sure
    about is blocked, content it only suspects is marked) or `mark` (nothing is blocked, everything it flags is
    marked: passed on as data labelled suspicious, the turn tainted so the approval policy holds what follows).
    Guardian off for an MCP is `input: false, output: false`.
    """

    model_config = ConfigDict(extra="forbid")

    input: bool | list[str] = True
    output: bool = True
    mode: Literal["block", "mark"] = "block"

    def scans_input(self, tool: str) -> bool:
        if isinstance(self.input, bool):
            return self.input
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.input)


class ToolEffects(BaseModel):
    """What calling a tool can change: the MCP standard's tool annotations, as they are on the wire.

    A tool that does not say is judged by the standard's defaults, which assume the worst (it may write, delete
    and reach the outside world); `external-mcps.json` may correct an external server's tools one by one."""

    model_config = ConfigDict(extra="forbid")

    readOnlyHint: bool = False
    destructiveHint: bool = True
    idempotentHint: bool = False
    openWorldHint: bool = True

    @classmethod
    def declared(cls, annotations: object | None, override: ToolEffectsOverride | None = None) -> ToolEffects:
        """From an MCP `ToolAnnotations` (or None: the pessimistic defaults), then `override` on top."""
        values = {
            field: getattr(annotations, attribute, None)
            for field, attribute in (
                ("readOnlyHint", "read_only_hint"),
                ("destructiveHint", "destructive_hint"),
                ("idempotentHint", "idempotent_hint"),
                ("openWorldHint", "open_world_hint"),
            )
        }
        if override is not None:
            values.update(override.model_dump(exclude_none=True))
        return cls.model_validate({key: value for key, value in values.items() if value is not None})

    @property
    def side_effects(self) -> bool:
        """Calling it can change something (a read-only tool changes nothing anywhere)."""
        return not self.readOnlyHint


class ToolEffectsOverride(BaseModel):
    """Annotations to correct for one tool of an external server (in external-mcps.json's `toolAnnotations`)."""

    model_config = ConfigDict(extra="forbid")

    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


class SettingFile(BaseModel):
    """A file an MCP reads: the variable that may name it, else `default` under `$ANNABELLE_HOME`."""

    model_config = ConfigDict(extra="forbid")

    variable: str = Field(pattern=_VARIABLE)
    default: str = Field(min_length=1, description="Relative to $ANNABELLE_HOME.")


class Needs(BaseModel):
    """What an MCP cannot do anything without (a token, a client file). Until one of `variables` is set or one of
    `files` exists, the hub does not start it with the others: it lists the tools shipped beside the manifest
    (`tools.json`) and starts the MCP on the first call to one of them, or once the setting appears."""

    model_config = ConfigDict(extra="forbid")

    variables: list[Annotated[str, Field(pattern=_VARIABLE)]] = Field(default_factory=list)
    files: list[SettingFile] = Field(default_factory=list)
    hint: str = Field(min_length=1, description="What to configure, as status shows it: 'set TELEGRAM_BOT_TOKEN'.")

    @model_validator(mode="after")
    def _something_to_check(self) -> Needs:
        if not self.variables and not self.files:
            raise ValueError("needs must name at least one of variables or files")
        return self


class WarmUp(BaseModel):
    """A call the hub makes once it is ready (`/health` ok), so that the MCP loads what its first real call would
    wait for (a model, a tokeniser). It must be harmless: a read-only tool (checked when it is made), with fixed
    arguments, its result discarded. See orchestrator/mcp_warm_up.py."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="The MCP's own tool name, without its prefix.")
    arguments: dict[str, Any] = Field(default_factory=dict)


class OwnerRecords(BaseModel):
    """One kind of record the owner keeps in this MCP (a skill, a fact, a contact, a file): which tools change one,
    and how the hub reads one. In an agent's turn, a change to a record the turn's request did not name waits for
    the owner (orchestrator/approvals/records.py); the hub reads the record (`read`, as its own call) to compare and
    to show the owner its name; without a reader the id is the name (a file's path). A record the turn made itself
    (`make`) may be changed freely in that turn."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(pattern=r"^[a-z]+$", description="What one is called, e.g. `skill`: the approval says it.")
    change: list[str] = Field(min_length=1, description="The MCP's tool-name globs that delete or overwrite one.")
    make: list[str] = Field(default_factory=list, description="Tools whose result names the new record's id.")
    idArgument: str = Field(
        pattern=r"^[a-z][a-z0-9_]*$", description="The argument (and result field) holding its id, e.g. `skill_id`."
    )
    read: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="The MCP's tool that returns one by id; none: the id is its name (a path).",
    )
    nameFields: list[str] = Field(
        default_factory=list,
        description='Fields of what `read` returns that say what it is, its name first, e.g. `["name", "description"]`.',
    )
    compare: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="The MCP's tool that says whether a request is about a record by meaning (`{about: bool}`), for "
        "requests whose words do not name it (another language).",
    )

    @model_validator(mode="after")
    def _named_when_read(self) -> OwnerRecords:
        if self.read is not None and not self.nameFields:
            raise ValueError("ownerRecords with a read tool must list the nameFields that say what a record is")
        return self

    def changes(self, tool: str) -> bool:
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.change)


class McpServing(BaseModel):
    """How the hub serves an MCP's tools: the fields a first-party `manifest.json` and an `external-mcps.json` entry
    both have, with one meaning and one set of limits. An external entry's are copied into its manifest
    (`serving_fields`), so a field added here reaches both."""

    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(default=30.0, gt=0, le=600, description="Seconds a tool call may take.")
    keywords: list[str] = Field(default_factory=list)
    guardianScan: GuardianScan = Field(default_factory=GuardianScan)
    allowDestructiveTools: bool = False
    toolAnnotations: dict[str, ToolEffectsOverride] = Field(
        default_factory=dict,
        description='Corrections of its tools\' MCP annotations, e.g. {"search": {"readOnlyHint": true}}; a tool '
        "that declares none is treated as able to write, delete and reach the outside world.",
    )

    def serving_fields(self) -> dict[str, Any]:
        """This model's `McpServing` fields by name, as values (not dumped), to build a manifest from."""
        return {name: getattr(self, name) for name in McpServing.model_fields}


class McpManifest(McpServing):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    mcpName: str = Field(pattern=r"^[a-z][a-z0-9]*$", description="Tool prefix: tools are `{mcpName}_{tool}`.")
    transport: Literal["stdio"] = "stdio"
    role: Literal["guardian", "channel"] | None = None
    required: bool = Field(default=False, description="Start-up aborts if this MCP cannot start.")
    label: str = Field(min_length=1, description="Service name shown in `[Label | Group]` tags.")
    toolGroup: str = Field(min_length=1)
    privilegedTools: list[str] = Field(
        default_factory=list,
        description="Tool-name globs only the hub itself may call (e.g. a channel's intake cursor); hidden from agents.",
    )
    untrustedOutput: bool | list[str] = Field(
        default=False,
        description="Tool-name globs (or all: true) whose results come from people or places the owner does not "
        "control (the web, mail, other people's messages, files from anywhere): a turn that reads one is tainted.",
    )
    needs: Needs | None = Field(
        default=None, description="A setting without which the MCP can do nothing: it then starts on first use."
    )
    warmUp: WarmUp | None = Field(
        default=None, description="A harmless call the hub makes once it is ready, so the first real one is fast."
    )
    ownerRecords: list[OwnerRecords] = Field(
        default_factory=list,
        description="The owner's records this MCP keeps: a change to one the request did not name asks the owner.",
    )
    command: str | None = Field(default=None, description="Executable for non-Python servers.")
    args: list[str] = Field(default_factory=list)

    @property
    def env_enabled_variable(self) -> str:
        return f"{self.mcpName.upper()}_MCP_ENABLED"

    def owner_records(self, tool: str) -> OwnerRecords | None:
        """The kind of owner's record `tool` (the MCP's own name) changes, if it changes one."""
        return next((records for records in self.ownerRecords if records.changes(tool)), None)

    def makes_records(self, tool: str) -> OwnerRecords | None:
        """The kind of owner's record `tool` makes, if it makes one."""
        return next((records for records in self.ownerRecords if tool in records.make), None)

    def output_untrusted(self, tool: str) -> bool:
        if isinstance(self.untrustedOutput, bool):
            return self.untrustedOutput
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.untrustedOutput)


def load_manifest(path: Path) -> McpManifest:
    return load_json_model(path, McpManifest, what="manifest", error=ManifestError)
