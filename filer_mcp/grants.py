"""Grants: folders outside the workspace that the user allowed the Filer to read.

The user edits one JSON file; the Filer never writes it (request_grant only explains how):

    {"grants": [{"path": "/home/me/Documents", "permission": "read"}]}

The file is re-read whenever its size or modification time changes, so an edit takes effect on the next tool
call. A missing file means no grants. An invalid file is reported (in the log once, and in every tool result
that needs grants) and grants nothing until it is fixed: the Filer keeps serving the workspace.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from filer_mcp.paths import GrantRule, Permission, RealPath
from shared.validation import error_lines

log = logging.getLogger(__name__)


class GrantsConfigError(Exception):
    """The grants file cannot be used; the message names the file, the problem and the fix."""


class GrantEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, description="Absolute path of a folder (or file) outside the workspace.")
    permission: Permission = "read"

    @field_validator("path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("contains a NUL byte")
        if value.startswith("~"):
            raise ValueError("'~' is not expanded: write the full absolute path")
        if not value.startswith("/"):
            raise ValueError("must be an absolute path (starting with '/')")
        return value


class GrantsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grants: list[GrantEntry] = Field(default_factory=list)


def example_entry(path: str, permission: Permission) -> dict[str, str]:
    return GrantEntry(path=path, permission=permission).model_dump()


def parse_grants(text: str, source: Path) -> GrantsFile:
    """Validate the grants file's text, raising `GrantsConfigError` that lists every problem."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GrantsConfigError(
            f"The grants file {source} is not valid JSON ({exc}). Fix it; it is re-read on the next call."
        ) from None
    try:
        return GrantsFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(error_lines(exc))
        raise GrantsConfigError(
            f"The grants file {source} is invalid: {problems}. "
            'Expected {"grants": [{"path": "/absolute/folder", "permission": "read" or "read-write"}]}; '
            "it is re-read on the next call."
        ) from None


class GrantStore:
    """The grants currently in force, re-read when the file changes."""

    def __init__(self, path: Path, *, realpath: RealPath = os.path.realpath) -> None:
        self.path = path
        self._realpath = realpath
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._rules: tuple[GrantRule, ...] = ()
        self._error: GrantsConfigError | None = None

    def rules(self) -> tuple[GrantRule, ...]:
        """The resolved grants; raises `GrantsConfigError` while the file is invalid."""
        with self._lock:
            self._refresh()
            if self._error is not None:
                raise self._error
            return self._rules

    def _refresh(self) -> None:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            self._seen, self._rules, self._error = None, (), None
            return
        except OSError as exc:
            self._fail(GrantsConfigError(f"The grants file {self.path} cannot be read ({exc.strerror})."))
            self._seen = None
            return
        key = (status.st_mtime_ns, status.st_size, status.st_ino)
        if key == self._seen:
            return
        self._seen = key
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self._fail(GrantsConfigError(f"The grants file {self.path} cannot be read ({exc})."))
            return
        try:
            parsed = parse_grants(text, self.path)
        except GrantsConfigError as exc:
            self._fail(exc)
            return
        # Resolved once here: containment is then checked against the real folder the grant names.
        self._rules = tuple(GrantRule(Path(self._realpath(entry.path)), entry.permission) for entry in parsed.grants)
        self._error = None
        log.info("grants loaded", extra={"grants_file": str(self.path), "grants": len(self._rules)})

    def _fail(self, error: GrantsConfigError) -> None:
        repeated = self._error is not None and str(self._error) == str(error)
        self._rules, self._error = (), error
        if repeated:
            return
        log.error("grants file rejected: %s", error, extra={"grants_file": str(self.path)})
