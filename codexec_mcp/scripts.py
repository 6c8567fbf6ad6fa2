"""The saved-script library: one folder per script under `CODEXEC_SCRIPTS_DIR`, holding `script.<ext>` and
`metadata.json`, both written atomically (a temporary file renamed into place).

The folder is the server's own and never visible to sandboxed code. Names are slugs (`CSV Cleaner` →
`csv-cleaner`), so a name can never become a path.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from codexec_mcp.languages import EXTENSIONS, Language
from codexec_mcp.models import ScriptContent, ScriptMetadata
from shared.private_files import write_private

MAX_NAME_CHARS = 64
METADATA = "metadata.json"


class ScriptError(Exception):
    """A script is missing or a name or field is unusable; the message says which."""


def slugify(name: str) -> str:
    """The original's rule: lower case, every run of other characters becomes one '-', no '-' at the ends."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower().strip()).strip("-")
    return slug[:MAX_NAME_CHARS].rstrip("-")


def matches(script: ScriptMetadata, query: str) -> bool:
    """Every word of the query appears in the name, description or tags (case-insensitive)."""
    text = " ".join([script.name, script.description, *script.tags]).lower()
    return all(term in text for term in query.lower().split())


def _clean(text: str) -> str:
    """JSON can carry lone surrogates; they cannot be stored as UTF-8 and become '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ScriptLibrary:
    def __init__(self, folder: Path, clock: Callable[[], str] = _now) -> None:
        self.folder = folder
        self._clock = clock

    def _slug(self, name: str) -> str:
        slug = slugify(name)
        if not slug:
            raise ScriptError(f"'{name[:80]}' is not a usable script name: it needs at least one letter or digit.")
        return slug

    def _metadata(self, slug: str) -> ScriptMetadata | None:
        path = self.folder / slug / METADATA
        try:
            return ScriptMetadata.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def save(
        self, name: str, description: str, language: Language, code: str, tags: list[str], packages: list[str]
    ) -> tuple[ScriptMetadata, bool]:
        slug = self._slug(name)
        folder = self.folder / slug
        existing = self._metadata(slug)
        folder.mkdir(parents=True, exist_ok=True)
        now = self._clock()
        metadata = ScriptMetadata(
            name=slug,
            description=_clean(description.strip()),
            language=language,
            tags=sorted({_clean(tag.strip().lower()) for tag in tags if tag.strip()}),
            packages=[_clean(package.strip()) for package in packages if package.strip()],
            created_at=existing.created_at if existing else now,
            updated_at=now,
            last_run_at=existing.last_run_at if existing else None,
            run_count=existing.run_count if existing else 0,
            last_run_success=existing.last_run_success if existing else None,
        )
        write_private(folder / f"script.{EXTENSIONS[language]}", _clean(code))
        write_private(folder / METADATA, metadata.model_dump_json(indent=2))
        if existing and existing.language != language:
            (folder / f"script.{EXTENSIONS[existing.language]}").unlink(missing_ok=True)
        return metadata, existing is None

    def get(self, name: str) -> ScriptContent:
        slug = self._slug(name)
        metadata = self._metadata(slug)
        if metadata is None:
            raise ScriptError(f"No saved script is named '{slug}'; list_scripts or search_scripts shows them.")
        try:
            code = (self.folder / slug / f"script.{EXTENSIONS[metadata.language]}").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise ScriptError(f"The code file of script '{slug}' is missing or unreadable; save it again.") from None
        return ScriptContent(code=code, metadata=metadata)

    def all(self) -> list[ScriptMetadata]:
        if not self.folder.is_dir():
            return []
        found = []
        for entry in sorted(self.folder.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                metadata = self._metadata(entry.name)
                if metadata is not None:
                    found.append(metadata)
        return found

    def list(self, language: Language | None, tag: str | None) -> list[ScriptMetadata]:
        scripts = self.all()
        if language:
            scripts = [script for script in scripts if script.language == language]
        if tag:
            scripts = [script for script in scripts if tag.strip().lower() in script.tags]
        return scripts

    def search(self, query: str) -> list[ScriptMetadata]:
        return [script for script in self.all() if matches(script, query)]

    def delete(self, name: str) -> str:
        slug = self._slug(name)
        if self._metadata(slug) is None:
            raise ScriptError(f"No saved script is named '{slug}'; list_scripts shows them.")
        shutil.rmtree(self.folder / slug)
        return slug

    def record_run(self, slug: str, success: bool) -> None:
        metadata = self._metadata(slug)
        if metadata is None:  # deleted while it ran
            return
        updated = metadata.model_copy(
            update={"run_count": metadata.run_count + 1, "last_run_at": self._clock(), "last_run_success": success}
        )
        write_private(self.folder / slug / METADATA, updated.model_dump_json(indent=2))
