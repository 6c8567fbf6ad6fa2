"""1Password's pure parts: what may reach `op`, what of its JSON is shown, op's errors as one sentence; and the
sealed-secret vault every model-facing path uses."""

from __future__ import annotations

import pytest

from onepassword_mcp.cli import NOT_CONFIGURED, op_error
from onepassword_mcp.items import check_name, check_reference, compact_item, is_sensitive, op_categories
from shared.mcp_tools import InvalidArguments
from shared.secrets import SEALED_KEY, SecretVault, mask_sealed, seal


@pytest.mark.parametrize(
    "reference",
    ["op://Private/Bank/password", "op://Work/Stripe/api/credential", "op://v/i/one-time password?attribute=otp"],
)
def test_secret_references_of_three_or_four_segments_are_accepted(reference: str) -> None:
    assert check_reference(f"  {reference} ") == reference


@pytest.mark.parametrize(
    "reference",
    ["op://Private/Bank", "op://a/b/c/d/e", "https://x/y/z", "op:///b/c", "op://a/b/c\nop://d/e/f", "op://a/b/c?x=y z"],
)
def test_anything_else_is_refused_with_what_a_reference_looks_like(reference: str) -> None:
    with pytest.raises(InvalidArguments, match="op://vault/item/field"):
        check_reference(reference)


@pytest.mark.parametrize(("value", "problem"), [("-v", "start with '-'"), ("  ", "empty"), ("a\x00b", "control")])
def test_a_name_can_never_become_an_option_of_op(value: str, problem: str) -> None:
    with pytest.raises(InvalidArguments, match=problem):
        check_name(value, "vault")


def test_categories_are_matched_to_ops_names_whatever_their_case_and_spacing() -> None:
    assert op_categories(["login", "CREDIT card", "api_credential", "Login"]) == "Login,Credit Card,API Credential"
    with pytest.raises(InvalidArguments, match="'Boat' is not a 1Password category"):
        op_categories(["Boat"])


@pytest.mark.parametrize(
    ("field", "sensitive"),
    [
        ({"type": "CONCEALED"}, True),
        ({"type": "OTP"}, True),
        ({"type": "CREDIT_CARD_NUMBER"}, True),
        ({"type": "SSHKEY"}, True),
        ({"type": "STRING", "purpose": "NOTES"}, True),
        ({"type": "STRING", "purpose": "USERNAME"}, False),
        ({"type": "URL"}, False),
        ({"type": "EMAIL"}, False),
    ],
)
def test_sensitive_fields_are_passwords_one_time_codes_cards_keys_and_notes(
    field: dict[str, str], sensitive: bool
) -> None:
    assert is_sensitive(field) is sensitive


def test_an_items_sensitive_values_and_current_code_are_sealed() -> None:
    item = compact_item(
        {
            "id": "x",
            "title": "GitHub",
            "vault": {"id": "v", "name": "Work"},
            "fields": [
                {"id": "u", "type": "STRING", "purpose": "USERNAME", "label": "username", "value": "ann"},
                {"id": "o", "type": "OTP", "label": "otp", "value": "otpauth://totp/x?secret=ABC", "totp": "123456"},
                {"id": "s", "type": "STRING", "label": "site", "section": {"id": "sec", "label": "More"}},
            ],
        }
    )
    username, otp, site = item["fields"]
    assert username["value"] == "ann" and item["vault"] == "Work"
    assert otp["value"] == seal("otpauth://totp/x?secret=ABC") and otp["totp"] == seal("123456")
    assert site["section"] == "More" and "value" not in site


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        ("[ERROR] 2026/11/25 10:00:00 You are not currently signed in. Please run `op signin --help`", NOT_CONFIGURED),
        ("[ERROR] 2026/11/25 10:00:00 (401) Unauthorized: You aren't authorized", "refused the service account token"),
        ('[ERROR] 2026/11/25 10:00:00 "X" isn\'t a vault in this account.\nmore', '1Password: "X" isn\'t a vault'),
        ("", "1Password: op exited with status 3."),
    ],
)
def test_ops_errors_become_one_sentence_without_its_timestamp(stderr: str, expected: str) -> None:
    sentence = op_error(stderr, 3)
    assert expected in sentence and "[ERROR]" not in sentence and "\n" not in sentence


def test_the_vault_gives_the_model_placeholders_and_reveals_only_this_turns_secrets() -> None:
    vault = SecretVault()
    envelope = {"success": True, "data": {"secret": seal("s3cret!"), "again": seal("s3cret!"), "other": seal("x")}}
    masked = vault.mask(envelope)
    text = str(masked)
    assert "s3cret!" not in text and "{{secret:1}}" in text and "{{secret:2}}" in text
    assert masked["data"]["secret"] == masked["data"]["again"]  # one number per distinct value
    assert envelope["data"]["secret"] == {SEALED_KEY: "s3cret!"}  # the original is untouched
    assert vault.reveal("Your password is {{secret:1}}; {{secret:9}} is unknown.") == (
        "Your password is s3cret!; {{secret:9}} is unknown."
    )
    assert vault.withhold("It is {{secret:1}}.") == "It is [a secret, not shown here]."
    assert mask_sealed([{"k": seal("abc")}]) == [{"k": "[secret withheld: 3 characters]"}]
    assert SecretVault().reveal("{{secret:1}}") == "{{secret:1}}"
