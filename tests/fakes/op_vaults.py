"""The vaults the fake `op` serves in tests (tests/fakes/op_cli.py): two vaults, a login, a card, a note, an API key."""

from __future__ import annotations

from typing import Any

TOKEN = "ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSJ9fake"
PASSWORD = "correct-horse-battery-staple-42"
API_KEY = "sk_live_51Hq8fakeStripeKeyValue0000"
CARD = "4111111111111111"

_PRIVATE = {"id": "v1private0000000000000001", "name": "Private"}
_WORK = {"id": "v2work000000000000000002", "name": "Work"}


def _item(
    item_id: str, title: str, category: str, vault: dict[str, str], fields: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": item_id,
        "title": title,
        "version": 3,
        "vault": vault,
        "category": category,
        "last_edited_by": "USER1",
        "created_at": "2025-01-02T10:00:00Z",
        "updated_at": "2026-03-04T10:00:00Z",
        "tags": ["home"] if vault is _PRIVATE else [],
        "urls": [{"primary": True, "href": "https://bank.example"}] if category == "LOGIN" else [],
        "fields": fields,
    }


DATA: dict[str, Any] = {
    "token": TOKEN,
    "vaults": [
        {**_PRIVATE, "content_version": 12, "items": 3},
        {**_WORK, "content_version": 4, "items": 2},
    ],
    "items": [
        _item(
            "i1bank",
            "Bank",
            "LOGIN",
            _PRIVATE,
            [
                {
                    "id": "username",
                    "type": "STRING",
                    "purpose": "USERNAME",
                    "label": "username",
                    "value": "ann@example.com",
                },
                {"id": "password", "type": "CONCEALED", "purpose": "PASSWORD", "label": "password", "value": PASSWORD},
                {
                    "id": "notesPlain",
                    "type": "STRING",
                    "purpose": "NOTES",
                    "label": "notesPlain",
                    "value": "PIN is 0000",
                },
            ],
        ),
        _item(
            "i2card",
            "Visa",
            "CREDIT_CARD",
            _PRIVATE,
            [
                {"id": "cardholder", "type": "STRING", "label": "cardholder name", "value": "Ann Example"},
                {"id": "ccnum", "type": "CREDIT_CARD_NUMBER", "label": "number", "value": CARD},
            ],
        ),
        _item(
            "i3dup",
            "Router",
            "WIRELESS_ROUTER",
            _PRIVATE,
            [{"id": "password", "type": "CONCEALED", "label": "password", "value": "wifi-one"}],
        ),
        _item(
            "i4stripe",
            "Stripe",
            "API_CREDENTIAL",
            _WORK,
            [
                {
                    "id": "credential",
                    "type": "CONCEALED",
                    "label": "credential",
                    "value": API_KEY,
                    "section": {"id": "api", "label": "api"},
                }
            ],
        ),
        _item(
            "i5dup",
            "Router",
            "WIRELESS_ROUTER",
            _WORK,
            [{"id": "password", "type": "CONCEALED", "label": "password", "value": "wifi-two"}],
        ),
    ],
}
