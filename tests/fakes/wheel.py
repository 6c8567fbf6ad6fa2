"""A wheel built in memory: a zip archive holding the given files, as the Guardian trainer's readers open one."""

from __future__ import annotations

import io
import zipfile


def wheel(files: dict[str, str]) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
