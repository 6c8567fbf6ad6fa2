"""The pure part of the 1Password MCP: what may be passed to `op`, and what of its JSON the tools return.

`op` answers with full records; the tools keep what a person asks about (names, categories, usernames, URLs,
references) and **seal** every sensitive value (passwords, concealed fields, one-time-password seeds and codes,
card numbers, notes, SSH keys) with `shared.secrets.seal`, so only the owner's own request or reply ever shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from shared.mcp_tools import InvalidArguments
from shared.secrets import seal

__all__ = [
    "CATEGORIES",
    "check_name",
    "check_reference",
    "compact_item",
    "compact_items",
    "compact_vaults",
    "is_sensitive",
    "op_categories",
]

# op's item categories, as `--categories` accepts them (case-insensitive; `op item list --help`).
CATEGORIES = (
    "API Credential",
    "Bank Account",
    "Credit Card",
    "Database",
    "Document",
    "Driver License",
    "Email Account",
    "Identity",
    "Login",
    "Medical Record",
    "Membership",
    "Outdoor License",
    "Passport",
    "Password",
    "Reward Program",
    "Secure Note",
    "Server",
    "Social Security Number",
    "Software License",
    "SSH Key",
    "Wireless Router",
)
_CATEGORY_KEYS = {re.sub(r"[^a-z]", "", name.lower()): name for name in CATEGORIES}

SENSITIVE_TYPES = frozenset({"CONCEALED", "OTP", "CREDIT_CARD_NUMBER", "SSHKEY"})
SENSITIVE_PURPOSES = frozenset({"PASSWORD", "NOTES"})

MAX_NAME_CHARS = 200
# op://<vault>/<item>[/<section>]/<field>[?attribute=...]: segments without '/', at most 4 of them.
_REFERENCE = re.compile(r"^op://[^/\s?][^/?]{0,199}(?:/[^/?]{1,200}){2,3}(?:\?[A-Za-z_-]{1,32}=[A-Za-z0-9_-]{1,64})?$")


def check_name(value: str, what: str) -> str:
    """A vault or item name or id as one `op` argument: never an option (a leading '-'), no control characters."""
    value = value.strip()
    if not value:
        raise InvalidArguments(f"{what} is empty; give its name or id.")
    if len(value) > MAX_NAME_CHARS:
        raise InvalidArguments(f"{what} is longer than {MAX_NAME_CHARS} characters.")
    if value.startswith("-"):
        raise InvalidArguments(f"{what} cannot start with '-'.")
    if any(ord(char) < 32 for char in value):
        raise InvalidArguments(f"{what} contains control characters.")
    return value


def check_reference(reference: str) -> str:
    """An `op://vault/item[/section]/field` secret reference, or a sentence saying what one looks like."""
    reference = reference.strip()
    if any(ord(char) < 32 for char in reference) or not _REFERENCE.match(reference):
        raise InvalidArguments(
            "reference must look like op://vault/item/field (or op://vault/item/section/field); "
            "get_item lists each field's reference."
        )
    return reference


def op_categories(categories: Sequence[str]) -> str:
    """The `--categories` value: each name matched to op's (case and spacing ignored), or a list of the valid ones."""
    chosen = []
    for category in categories:
        name = _CATEGORY_KEYS.get(re.sub(r"[^a-z]", "", category.lower()))
        if name is None:
            raise InvalidArguments(f"{category!r} is not a 1Password category; use one of: {', '.join(CATEGORIES)}.")
        chosen.append(name)
    return ",".join(dict.fromkeys(chosen))


def _vault(raw: Any) -> str | None:
    return str(raw.get("name") or raw.get("id")) if isinstance(raw, Mapping) else None


def _urls(raw: Any) -> list[str]:
    return [str(url["href"]) for url in raw or [] if isinstance(url, Mapping) and url.get("href")]


def compact_vaults(raw: Any) -> list[dict[str, Any]]:
    return [
        {"id": vault.get("id"), "name": vault.get("name"), "items": vault.get("items")}
        for vault in raw or []
        if isinstance(vault, Mapping)
    ]


def _overview(item: Mapping[str, Any]) -> dict[str, Any]:
    """What `op item list` and `op item get` both say about an item: everything but its fields."""
    return {
        "id": item.get("id"),
        "title": item.get("title"),
        "category": item.get("category"),
        "vault": _vault(item.get("vault")),
        "tags": item.get("tags") or [],
        "urls": _urls(item.get("urls")),
        "updatedAt": item.get("updated_at"),
    }


def compact_items(raw: Any) -> list[dict[str, Any]]:
    """`op item list` records (they carry no field values)."""
    return [_overview(item) for item in raw or [] if isinstance(item, Mapping)]


def is_sensitive(field: Mapping[str, Any]) -> bool:
    """Passwords, concealed fields, one-time passwords, card numbers, notes and SSH keys."""
    return str(field.get("type") or "").upper() in SENSITIVE_TYPES or (
        str(field.get("purpose") or "").upper() in SENSITIVE_PURPOSES
    )


def _field(raw: Mapping[str, Any]) -> dict[str, Any]:
    section = raw.get("section")
    field: dict[str, Any] = {
        "id": raw.get("id"),
        "label": raw.get("label"),
        "type": raw.get("type"),
        "section": section.get("label") or section.get("id") if isinstance(section, Mapping) else None,
        "reference": raw.get("reference"),
    }
    if raw.get("purpose"):
        field["purpose"] = raw["purpose"]
    sensitive = is_sensitive(raw)
    field["sensitive"] = sensitive
    if "value" in raw and raw["value"] is not None:
        value = str(raw["value"])
        field["value"] = seal(value) if sensitive else value
    if raw.get("totp"):
        field["totp"] = seal(str(raw["totp"]))
    return field


def compact_item(raw: Any) -> dict[str, Any]:
    """`op item get` made readable, with every sensitive value sealed."""
    if not isinstance(raw, Mapping):
        return {}
    return {
        **_overview(raw),
        "fields": [_field(field) for field in raw.get("fields") or [] if isinstance(field, Mapping)],
    }
