"""A fake of 1Password's `op` CLI (2.x) for tests: the same commands, JSON shapes, `[ERROR]` lines and exit codes.

Put it on PATH with `install_fake_op(folder, data)`: it writes an `op` script that runs this file with the data
(vaults, items and the one service account token it accepts) in a JSON file beside it, and logs each call's
arguments (never a value) to `calls.log` there.

    op vault list --format json
    op item list --vault <v> [--categories A,B] --format json
    op item get <item> [--vault <v>] --format json
    op read [--no-newline] op://<vault>/<item>[/<section>]/<field>

Like the real one: no `OP_SERVICE_ACCOUNT_TOKEN` → "You are not currently signed in", a wrong token → 401, an
unknown vault/item/field or an ambiguous title → its own message; all on stderr with exit code 1.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

DATA_FILE = "op-data.json"
CALLS_FILE = "calls.log"


def install_fake_op(folder: Path, data: dict[str, Any]) -> Path:
    """Write `folder/op` (executable) and its data; returns the folder, to put first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / DATA_FILE).write_text(json.dumps(data), encoding="utf-8")
    script = folder / "op"
    script.write_text(
        f'#!/bin/sh\nFAKE_OP_DIR="{folder}" exec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def _fail(message: str) -> None:
    stamp = time.strftime("%Y/%m/%d %H:%M:%S")
    sys.stderr.write(f"[ERROR] {stamp} {message}\n")
    raise SystemExit(1)


def _options(args: list[str]) -> tuple[list[str], dict[str, str]]:
    positional: list[str] = []
    options: dict[str, str] = {}
    flags = {"--no-newline", "-n"}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in flags:
            options[arg.lstrip("-")] = "true"
        elif arg.startswith("--") and "=" in arg:
            key, value = arg[2:].split("=", 1)
            options[key] = value
        elif arg.startswith("--"):
            if index + 1 >= len(args):
                _fail(f'flag needs an argument: "{arg}"')
            options[arg[2:]] = args[index + 1]
            index += 1
        elif arg.startswith("-"):
            _fail(f'unknown shorthand flag: "{arg}"')
        else:
            positional.append(arg)
        index += 1
    return positional, options


def _vault(data: dict[str, Any], wanted: str) -> dict[str, Any]:
    for vault in data["vaults"]:
        if wanted in (vault["id"], vault["name"]):
            return vault
    _fail(f'"{wanted}" isn\'t a vault in this account. Specify the vault with its ID or name.')
    raise AssertionError


def _items(data: dict[str, Any], vault: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [item for item in data["items"] if vault is None or item["vault"]["id"] == vault["id"]]


def _item(data: dict[str, Any], wanted: str, vault: dict[str, Any] | None) -> dict[str, Any]:
    found = [item for item in _items(data, vault) if wanted in (item["id"], item["title"])]
    if not found:
        _fail(f'"{wanted}" isn\'t an item. Specify the item with its UUID, name, or domain.')
    if len(found) > 1:
        _fail(f'More than one item matches "{wanted}". Try again and specify the item by its ID:')
    return found[0]


def _summary(item: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key not in ("fields", "sections")}


def _with_references(item: dict[str, Any]) -> dict[str, Any]:
    vault = item["vault"]["name"]
    fields = []
    for field in item.get("fields", []):
        section = field.get("section", {}).get("label")
        path = "/".join(part for part in (vault, item["title"], section, field["label"]) if part)
        fields.append({**field, "reference": f"op://{path}"})
    return {**item, "fields": fields}


def _read(data: dict[str, Any], reference: str) -> str:
    if not reference.startswith("op://"):
        _fail(f"could not read secret '{reference}': invalid secret reference: must start with op://")
    parts = reference[len("op://") :].split("?")[0].split("/")
    if len(parts) not in (3, 4):
        _fail(f"could not read secret '{reference}': invalid secret reference: too few or many segments")
    vault = _vault(data, parts[0])
    item = _item(data, parts[1], vault)
    section, label = (None, parts[2]) if len(parts) == 3 else (parts[2], parts[3])
    for field in item.get("fields", []):
        if label in (field["id"], field["label"]) and (
            section is None or field.get("section", {}).get("label") == section
        ):
            return str(field.get("value", ""))
    _fail(
        f'could not read secret \'{reference}\': error initializing client: "{label}" isn\'t a field in the "{item["title"]}" item'
    )
    raise AssertionError


def main(argv: list[str]) -> None:
    here = Path(os.environ["FAKE_OP_DIR"])
    data = json.loads((here / DATA_FILE).read_text(encoding="utf-8"))
    with (here / CALLS_FILE).open("a", encoding="utf-8") as log:
        log.write(json.dumps(argv[:2] + [a for a in argv[2:] if not a.startswith("op://")]) + "\n")
    token = os.environ.get("OP_SERVICE_ACCOUNT_TOKEN")
    if not token:
        _fail("You are not currently signed in. Please run `op signin --help` for instructions")
    if token != data["token"]:
        _fail("(401) Unauthorized: You aren't authorized to perform this action.")
    positional, options = _options(argv)
    if options.get("format") not in (None, "json"):
        _fail(f'"{options["format"]}" is not a valid format')
    command = positional[:2]
    if command == ["vault", "list"]:
        out: Any = [dict(vault) for vault in data["vaults"]]
    elif command == ["item", "list"]:
        vault = _vault(data, options["vault"]) if "vault" in options else None
        wanted = {c.strip().upper().replace(" ", "_") for c in options.get("categories", "").split(",") if c.strip()}
        out = [_summary(item) for item in _items(data, vault) if not wanted or item["category"] in wanted]
    elif command == ["item", "get"] and len(positional) == 3:
        vault = _vault(data, options["vault"]) if "vault" in options else None
        out = _with_references(_item(data, positional[2], vault))
    elif positional[:1] == ["read"] and len(positional) == 2:
        value = _read(data, positional[1])
        sys.stdout.write(value if "no-newline" in options or "n" in options else value + "\n")
        return
    else:
        _fail(f'unknown command "{" ".join(positional)}" for "op"')
    sys.stdout.write(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
