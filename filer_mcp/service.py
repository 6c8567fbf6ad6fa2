"""The Filer's operations: path checks, file work and the audit trail put together, one method per tool.

Each public method records one audit line (success or the refusal's sentence) and raises the
`shared.mcp_tools` failures the envelope understands: `NotAllowed` for isolation, `InvalidArguments` for bad
input, `ToolFailure` for everything else. Path errors and `OSError`s are translated here, at the boundary.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import json
import logging
import os
import re
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from filer_mcp import fsops
from filer_mcp.audit import AuditLog, parse_date_from, select_entries
from filer_mcp.grants import GrantsConfigError, GrantStore, example_entry
from filer_mcp.models import (
    AuditLogPage,
    Copied,
    Deleted,
    FileContent,
    FileCreated,
    FileInfo,
    FileList,
    FileUpdated,
    GrantCheck,
    GrantInfo,
    GrantList,
    GrantRequest,
    Moved,
    SearchHit,
    SearchResults,
    WorkspaceInfo,
)
from filer_mcp.paths import (
    Access,
    GrantRule,
    InvalidPath,
    NoGrant,
    ParsedPath,
    PathNotAllowed,
    PathPolicy,
    Permission,
    RealPath,
    SafePath,
    parse_path,
    printable,
    protected_locations,
    resolve_path,
    workspace_problem,
)
from filer_mcp.settings import FilerSettings
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from shared.private_files import PRIVATE_DIR_MODE, private_dir
from shared.settings import ConfigError

log = logging.getLogger(__name__)

TEMP_DIR = "temp"
MAX_LIST_ENTRIES = 2_000
MAX_SEARCH_RESULTS = 100
MAX_SEARCH_SCAN = 20_000
CONTENT_SEARCH_MAX_BYTES = 1024 * 1024
SNIPPET_CONTEXT = 50
MAX_QUERY_CHARS = 1_000

SearchIn = Literal["workspace", "granted", "all"]
SearchType = Literal["filename", "content"]


def _timestamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _label(safe: SafePath) -> str:
    if safe.zone == "workspace":
        return f"'{safe.display}' in the workspace"
    return f"'{safe.display}'"


@contextlib.contextmanager
def _os_errors(subject: str, *, destination: str | None = None) -> Iterator[None]:
    """Turn file-system errors about `subject` into sentences the caller can act on."""
    try:
        yield
    except fsops.FileTooLarge as exc:
        raise ToolFailure(
            f"{subject} is {exc.size:,} bytes, more than the limit of {exc.limit:,} bytes (FILER_MAX_READ_BYTES)."
        ) from None
    except fsops.NotRegularFile as exc:
        if exc.kind == "directory":
            raise ToolFailure(f"{subject} is a folder, not a file: use list_files to see what it holds.") from None
        raise ToolFailure(f"{subject} is a {exc.kind}, not a regular file; refused.") from None
    except FileExistsError:
        raise ToolFailure(f"{destination or subject} already exists.") from None
    except FileNotFoundError:
        raise ToolFailure(f"{subject} does not exist.") from None
    except IsADirectoryError:
        raise ToolFailure(f"{destination or subject} is a folder, not a file.") from None
    except NotADirectoryError:
        raise ToolFailure(f"A folder on the way to {destination or subject} is a file.") from None
    except PermissionError:
        raise ToolFailure(f"The server's user is not permitted to access {subject}.") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotAllowed(
                f"{subject} passes through a symbolic link (or one that changed after it was checked); refused."
            ) from None
        if exc.errno == errno.ENOTEMPTY:
            raise ToolFailure(f"The folder {subject} is not empty; delete what it holds first.") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise InvalidArguments(f"The path {subject} is too long for the file system.") from None
        if exc.errno == errno.ENOSPC:
            raise ToolFailure("The disk is full; nothing was written.") from None
        raise ToolFailure(f"The file operation on {subject} failed: {exc.strerror or exc}.") from None


def _content_bytes(content: str, limit: int) -> bytes:
    data = content.encode("utf-8")
    if len(data) > limit:
        raise InvalidArguments(
            f"The content is {len(data):,} bytes, more than the limit of {limit:,} bytes (FILER_MAX_READ_BYTES)."
        )
    return data


def _decode_text(data: bytes, subject: str) -> str:
    if b"\x00" in data:
        raise ToolFailure(f"{subject} looks like a binary file; read_file returns text only.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ToolFailure(f"{subject} is not UTF-8 text; read_file returns text only.") from None


def _normalise_extensions(file_types: Sequence[str] | None) -> tuple[str, ...]:
    found: list[str] = []
    for raw in file_types or ():
        extension = raw.strip().lower().lstrip("*")
        if not extension:
            continue
        found.append(extension if extension.startswith(".") else "." + extension)
    return tuple(found)


def _snippet(text: str, start: int, end: int) -> str:
    left = max(0, start - SNIPPET_CONTEXT)
    right = min(len(text), end + SNIPPET_CONTEXT)
    body = " ".join(text[left:right].split())
    return ("..." if left > 0 else "") + body + ("..." if right < len(text) else "")


class Filer:
    """The workspace, its grants, its protected locations and its audit log."""

    def __init__(
        self,
        *,
        workspace: Path,
        grants: GrantStore,
        audit: AuditLog,
        protected: tuple[Path, ...],
        max_read_bytes: int,
        realpath: RealPath = os.path.realpath,
    ) -> None:
        self.workspace = workspace
        self.grants = grants
        self.audit = audit
        self.protected = protected
        self.max_read_bytes = max_read_bytes
        self._realpath = realpath

    @classmethod
    def start(cls, settings: FilerSettings) -> Filer:
        """Check and create the workspace (and its temp/), clear old temp files, and return the ready Filer.

        Raises `ConfigError` when the workspace would expose protected locations or Annabelle's own home.
        """
        try:
            user_home: Path | None = Path.home()
        except RuntimeError:
            user_home = None

        def refuse_if_unsafe(candidate: Path) -> None:
            problem = workspace_problem(candidate, user_home=user_home, annabelle_home=settings.annabelle_home)
            if problem is not None:
                raise ConfigError(f"FILER_WORKSPACE: {problem}")

        # Checked before anything is created, so a wrong setting never makes a folder inside ~/.ssh, and again
        # on the folder as it really is once it exists.
        refuse_if_unsafe(Path(os.path.realpath(settings.workspace)))
        private_dir(settings.workspace)
        workspace = Path(os.path.realpath(settings.workspace))
        refuse_if_unsafe(workspace)
        (workspace / TEMP_DIR).mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        protected = protected_locations(
            user_home=user_home,
            annabelle_home=settings.annabelle_home,
            extra=(settings.grants_config, settings.audit_log),
        )
        filer = cls(
            workspace=workspace,
            grants=GrantStore(settings.grants_config),
            audit=AuditLog(settings.audit_log),
            protected=protected,
            max_read_bytes=settings.filer_max_read_bytes,
        )
        if settings.filer_temp_cleanup_days > 0:
            removed = filer.clean_temp(settings.filer_temp_cleanup_days)
            if removed:
                log.info("old temp files removed", extra={"removed": removed})
        return filer

    def clean_temp(self, days: int) -> int:
        cutoff = time.time() - days * 86_400
        return fsops.remove_files_older_than(self.workspace, (TEMP_DIR,), cutoff)

    # -- shared steps ---------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _audited(self, operation: str, path: str, destination: str | None = None) -> Iterator[None]:
        try:
            yield
        except ToolFailure as failure:
            self.audit.record(operation, path, success=False, error=str(failure), destination=destination)
            raise
        except Exception as exc:
            self.audit.record(
                operation, path, success=False, error=f"unexpected {type(exc).__name__}", destination=destination
            )
            raise
        self.audit.record(operation, path, success=True, destination=destination)

    def _parse(self, raw: str) -> ParsedPath:
        try:
            return parse_path(raw)
        except InvalidPath as exc:
            raise InvalidArguments(str(exc)) from None
        except PathNotAllowed as exc:
            raise NotAllowed(str(exc)) from None

    def _grant_rules(self) -> tuple[GrantRule, ...]:
        try:
            return self.grants.rules()
        except GrantsConfigError as exc:
            raise ToolFailure(str(exc)) from None

    def _policy(self, grants: tuple[GrantRule, ...] = ()) -> PathPolicy:
        return PathPolicy(self.workspace, grants, self.protected)

    def _resolve(self, raw: str, access: Access, *, follow_final: bool = True) -> SafePath:
        parsed = self._parse(raw)
        grants: tuple[GrantRule, ...] = ()
        grants_error: GrantsConfigError | None = None
        # Only absolute paths can need a grant; a broken grants file must not block the workspace.
        if parsed.absolute and access is Access.READ:
            try:
                grants = self.grants.rules()
            except GrantsConfigError as exc:
                grants_error = exc
        try:
            return resolve_path(
                parsed, self._policy(grants), access, follow_final=follow_final, realpath=self._realpath
            )
        except NoGrant as exc:
            if grants_error is not None:
                raise ToolFailure(str(grants_error)) from None
            raise NotAllowed(str(exc)) from None
        except PathNotAllowed as exc:
            raise NotAllowed(str(exc)) from None

    def _resolve_file_target(self, raw: str, *, follow_final: bool = True) -> SafePath:
        target = self._resolve(raw, Access.WRITE, follow_final=follow_final)
        if target.is_base:
            raise InvalidArguments(
                f"'{raw}' is the workspace folder itself: name a file inside it, e.g. 'notes/todo.md'."
            )
        return target

    # -- the tools ------------------------------------------------------------------------------------------

    def create_file(self, path: str, content: str, overwrite: bool = False) -> FileCreated:
        with self._audited("create_file", path):
            target = self._resolve_file_target(path)
            data = _content_bytes(content, self.max_read_bytes)
            with _os_errors(_label(target)):
                existed = fsops.exists(target.base, target.parts)
                if existed and not overwrite:
                    raise ToolFailure(
                        f"{_label(target)} already exists: pass overwrite=true to replace it, or use update_file."
                    )
                size = fsops.atomic_write(target.base, target.parts, [data], overwrite=overwrite)
            return FileCreated(
                path=target.display, size_bytes=size, created_at=_timestamp(time.time()), overwritten=existed
            )

    def read_file(self, path: str) -> FileContent:
        with self._audited("read_file", path):
            source = self._resolve(path, Access.READ)
            with _os_errors(_label(source)):
                data, status = fsops.read_bytes(source.base, source.parts, self.max_read_bytes)
            return FileContent(
                path=source.display,
                content=_decode_text(data, _label(source)),
                size_bytes=status.st_size,
                modified_at=_timestamp(status.st_mtime),
            )

    def update_file(self, path: str, content: str, create_backup: bool = True, append: bool = False) -> FileUpdated:
        with self._audited("update_file", path):
            target = self._resolve_file_target(path)
            data = _content_bytes(content, self.max_read_bytes)
            backup_name = target.parts[-1] + ".bak" if create_backup else None
            if backup_name is not None and len(backup_name.encode("utf-8")) > 255:
                raise InvalidArguments(
                    f"The name of {_label(target)} is too long to add '.bak'; pass create_backup=false."
                )
            with _os_errors(_label(target)):
                if not fsops.exists(target.base, target.parts):
                    raise ToolFailure(f"{_label(target)} does not exist; use create_file to make it.")
                if append:
                    size = fsops.backup_and_extend(
                        target.base, target.parts, data, backup_name=backup_name, max_bytes=self.max_read_bytes
                    )
                else:
                    size = fsops.backup_and_replace(target.base, target.parts, data, backup_name=backup_name)
            backup = None
            if backup_name is not None:
                backup = SafePath(target.base, (*target.parts[:-1], backup_name), target.zone).display
            return FileUpdated(
                path=target.display, size_bytes=size, updated_at=_timestamp(time.time()), backup_path=backup
            )

    def delete_file(self, path: str) -> Deleted:
        with self._audited("delete_file", path):
            # The entry itself: deleting a symlink removes the link, never what it points to.
            target = self._resolve(path, Access.WRITE, follow_final=False)
            if target.is_base:
                raise NotAllowed("The workspace folder itself cannot be deleted.")
            if self._policy().contains_protected(target.absolute, target.zone):
                raise NotAllowed(f"{_label(target)} holds a protected location; it cannot be deleted.")
            with _os_errors(_label(target)):
                kind = fsops.remove_entry(target.base, target.parts)
            return Deleted(deleted_path=target.display, type=kind)

    def move_file(self, source: str, destination: str) -> Moved:
        with self._audited("move_file", source, destination):
            origin = self._resolve(source, Access.WRITE, follow_final=False)
            target = self._resolve_file_target(destination, follow_final=False)
            if origin.is_base:
                raise NotAllowed("The workspace folder itself cannot be moved.")
            if self._policy().contains_protected(origin.absolute, origin.zone):
                raise NotAllowed(f"{_label(origin)} holds a protected location; it cannot be moved.")
            if target.parts[: len(origin.parts)] == origin.parts:
                raise InvalidArguments(f"{_label(origin)} cannot be moved into itself.")
            with _os_errors(_label(origin), destination=_label(target)):
                kind = fsops.rename_entry(self.workspace, origin.parts, target.parts)
            return Moved(old_path=origin.display, new_path=target.display, type=kind)

    def copy_file(self, source: str, destination: str) -> Copied:
        with self._audited("copy_file", source, destination):
            origin = self._resolve(source, Access.READ)
            target = self._resolve_file_target(destination, follow_final=False)
            with _os_errors(_label(origin), destination=_label(target)):
                size = fsops.copy_file(origin.base, origin.parts, target.base, target.parts)
            return Copied(source_path=origin.display, destination_path=target.display, size_bytes=size)

    def list_files(self, path: str = ".", recursive: bool = False) -> FileList:
        with self._audited("list_files", path):
            folder = self._resolve(path, Access.READ)
            policy = self._policy()
            with _os_errors(_label(folder)):
                if fsops.kind_of(fsops.lstat_entry(folder.base, folder.parts).st_mode) != "directory":
                    raise ToolFailure(f"{_label(folder)} is a file, not a folder: use read_file.")
                found = fsops.walk(
                    folder.base,
                    folder.parts,
                    recursive=recursive,
                    max_entries=MAX_LIST_ENTRIES,
                    skip=lambda parts: policy.is_protected(folder.base.joinpath(*parts), folder.zone),
                )
            files = []
            for entry in found.entries:
                name = printable("/".join(entry.parts)) + ("/" if entry.kind == "directory" else "")
                where = SafePath(folder.base, (*folder.parts, *entry.parts), folder.zone)
                files.append(
                    FileInfo(
                        name=name,
                        path=where.display,
                        type=entry.kind,
                        size_bytes=entry.size if entry.kind == "file" else None,
                        modified_at=_timestamp(entry.mtime),
                    )
                )
            return FileList(path=folder.display, files=files, truncated=found.truncated)

    def search_files(
        self,
        query: str,
        search_in: SearchIn = "workspace",
        search_type: SearchType = "filename",
        file_types: Sequence[str] | None = None,
    ) -> SearchResults:
        with self._audited("search_files", query):
            if not query.strip():
                raise InvalidArguments("The query is empty: give a part of a file name or of its text.")
            if len(query) > MAX_QUERY_CHARS:
                raise InvalidArguments(f"The query is longer than {MAX_QUERY_CHARS} characters.")
            roots: list[SafePath] = []
            if search_in in ("workspace", "all"):
                roots.append(SafePath(self.workspace, (), "workspace"))
            if search_in in ("granted", "all"):
                rules = self._grant_rules()
                roots.extend(SafePath(rule.path, (), "granted", rule) for rule in rules)
            return self._search(roots, query, search_type, _normalise_extensions(file_types))

    def _search(
        self, roots: list[SafePath], query: str, search_type: SearchType, extensions: tuple[str, ...]
    ) -> SearchResults:
        policy = self._policy()
        pattern = re.compile(re.escape(query), re.IGNORECASE)
        use_glob = any(char in query for char in "*?[")
        hits: list[SearchHit] = []
        seen: set[Path] = set()
        searched: list[str] = []
        truncated = False
        for root in roots:
            if root.zone == "granted" and policy.is_protected(root.base, "granted"):
                continue
            try:
                found = self._candidates(root, policy)
            except (OSError, fsops.FsError):
                continue
            searched.append(root.display if root.zone == "granted" else printable(self.workspace))
            truncated = truncated or found.truncated
            for entry in found.entries:
                if entry.kind != "file":
                    continue
                where = SafePath(root.base, entry.parts, root.zone)
                name = entry.parts[-1] if entry.parts else root.base.name
                if where.absolute in seen or (extensions and not name.lower().endswith(extensions)):
                    continue
                hit = self._match(where, name, entry, query, pattern, use_glob, search_type)
                if hit is None:
                    continue
                seen.add(where.absolute)
                if len(hits) >= MAX_SEARCH_RESULTS:
                    truncated = True
                    break
                hits.append(hit)
        return SearchResults(results=hits, total_count=len(hits), searched_locations=searched, truncated=truncated)

    def _candidates(self, root: SafePath, policy: PathPolicy) -> fsops.WalkResult:
        status = fsops.lstat_entry(root.base, ())
        if fsops.kind_of(status.st_mode) == "file":
            # A grant may name a single file.
            return fsops.WalkResult([fsops.Entry((), "file", status.st_size, status.st_mtime)], truncated=False)
        return fsops.walk(
            root.base,
            (),
            recursive=True,
            max_entries=MAX_SEARCH_SCAN,
            skip=lambda parts: policy.is_protected(root.base.joinpath(*parts), root.zone),
        )

    def _match(
        self,
        where: SafePath,
        name: str,
        entry: fsops.Entry,
        query: str,
        pattern: re.Pattern[str],
        use_glob: bool,
        search_type: SearchType,
    ) -> SearchHit | None:
        modified = _timestamp(entry.mtime)
        if search_type == "filename":
            matched = fnmatch.fnmatch(name.lower(), query.lower()) if use_glob else bool(pattern.search(name))
            return SearchHit(path=where.display, match_type="filename", modified_at=modified) if matched else None
        if entry.size > min(CONTENT_SEARCH_MAX_BYTES, self.max_read_bytes):
            return None
        try:
            data, _ = fsops.read_bytes(where.base, where.parts, CONTENT_SEARCH_MAX_BYTES)
        except (OSError, fsops.FsError):
            return None
        if b"\x00" in data:
            return None
        text = data.decode("utf-8", errors="replace")
        found = pattern.search(text)
        if found is None:
            return None
        return SearchHit(
            path=where.display,
            match_type="content",
            modified_at=modified,
            snippet=_snippet(text, found.start(), found.end()),
        )

    def check_grant(self, path: str) -> GrantCheck:
        with self._audited("check_grant", path):
            parsed = self._parse(path)
            rules = self._grant_rules() if parsed.absolute else ()
            try:
                safe = resolve_path(parsed, self._policy(rules), Access.READ, realpath=self._realpath)
            except PathNotAllowed as exc:
                return GrantCheck(path=parsed.text, has_access=False, reason=str(exc))
            if safe.zone == "workspace":
                return GrantCheck(
                    path=safe.display,
                    has_access=True,
                    scope="workspace",
                    permission="read-write",
                    reason="Paths in the workspace need no grant.",
                )
            return GrantCheck(
                path=safe.display,
                has_access=True,
                scope="granted",
                permission=safe.grant.permission if safe.grant else None,
                granted_path=printable(safe.grant.path) if safe.grant else None,
            )

    def request_grant(self, path: str, permission: Permission, reason: str) -> GrantRequest:
        with self._audited("request_grant", path):
            parsed = self._parse(path)
            if not parsed.absolute:
                raise InvalidArguments(
                    "request_grant takes an absolute path outside the workspace; workspace paths need no grant."
                )
            rules = self._grant_rules()
            grants_file = printable(self.grants.path)
            try:
                safe = resolve_path(parsed, self._policy(rules), Access.READ, realpath=self._realpath)
            except NoGrant:
                safe = None
            except PathNotAllowed as exc:
                return GrantRequest(status="denied", message=str(exc), grants_file=grants_file)
            if safe is not None and safe.zone == "workspace":
                return GrantRequest(
                    status="granted",
                    message=f"'{parsed.text}' is inside the workspace; it needs no grant.",
                    grants_file=grants_file,
                )
            if (
                safe is not None
                and safe.grant is not None
                and (permission == "read" or safe.grant.permission == "read-write")
            ):
                return GrantRequest(
                    status="granted",
                    message=f"Access is already granted by the grant for {safe.grant.path}.",
                    grants_file=grants_file,
                )
            entry = example_entry(parsed.text, permission)
            return GrantRequest(
                status="configure_required",
                message=(
                    f"Grants are given by the user, not by this tool. To allow {permission} access to "
                    f'{parsed.text}, the user adds this entry to the "grants" list in {grants_file} '
                    f'(creating it as {{"grants": []}} if missing): {json.dumps(entry)}. The change applies on the next '
                    f"file operation; no restart is needed. Reason given: {reason.strip()}"
                ),
                grants_file=grants_file,
                entry=entry,
            )

    def list_grants(self) -> GrantList:
        with self._audited("list_grants", printable(self.grants.path)):
            rules = self._grant_rules()
            return GrantList(
                grants_file=printable(self.grants.path),
                grants=[
                    GrantInfo(path=printable(rule.path), permission=rule.permission, exists=rule.path.exists())
                    for rule in rules
                ],
            )

    def get_workspace_info(self) -> WorkspaceInfo:
        with self._audited("get_workspace_info", "."):
            with _os_errors("the workspace"):
                found = fsops.walk(self.workspace, (), recursive=True, max_entries=1_000_000)
            files = [entry for entry in found.entries if entry.kind == "file"]
            return WorkspaceInfo(
                workspace_path=printable(self.workspace),
                total_files=len(files),
                total_size_mb=round(sum(entry.size for entry in files) / (1024 * 1024), 2),
                temp_files=sum(1 for entry in files if entry.parts[0] == TEMP_DIR),
            )

    def get_audit_log(
        self,
        path_filter: str | None = None,
        operation_filter: str | None = None,
        date_from: str | None = None,
        limit: int = 100,
    ) -> AuditLogPage:
        # Not audited itself: reading the trail is not a file operation, and recording it would make
        # every look at the log change the log.
        since = None
        if date_from:
            try:
                since = parse_date_from(date_from)
            except ValueError:
                raise InvalidArguments(
                    f"date_from {date_from!r} is not a date: use ISO form, e.g. 2026-11-21 or 2026-11-21T09:00:00Z."
                ) from None
        entries = select_entries(
            self.audit.entries(),
            path_filter=path_filter,
            operation_filter=operation_filter,
            date_from=since,
            limit=limit,
        )
        return AuditLogPage(entries=entries, count=len(entries))
