"""The secret filter: every pattern of the original's isFactSafe, the added kinds, and texts that must pass."""

from __future__ import annotations

import pytest

from memorizer_mcp.secret_filter import PATTERNS, find_secret, find_secret_in, is_safe, redact, refusal

# Fake credentials assembled at run time, so this file never holds a string a secret scanner would flag.
A = "a1B2c3D4e5F6g7H8i9J0"  # 20 characters
SECRETS = [
    ("OpenAI API key", "my key is sk-" + A + "xyz"),
    ("OpenAI API key", "sk-proj-" + A + "_-" + A),
    ("Anthropic API key", "sk-ant-api03-" + A + A),
    ("Groq API key", "gsk_" + A + "Q"),
    ("Slack token", "xoxb-1234-5678-abcd"),
    ("GitHub token", "ghp_" + A + "abcdefghijklmnop"),
    ("GitHub token", "github_pat_" + A + "_" + A),
    ("GitLab token", "glpat-" + A),
    ("Telegram bot token", "bot 123456789:" + A + "ABCDEFGHIJKLMNO"),
    ("Google API key", "AIza" + A + "abcdefghijklmno"),
    ("JSON Web Token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow..."),
    ("private key", "-----BEGIN EC PRIVATE KEY-----"),
    ("private key", "-----BEGIN PRIVATE KEY-----"),
    ("private key", "-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("private key", "-----BEGIN DSA PRIVATE KEY-----"),
    ("private key", "-----BEGIN ENCRYPTED PRIVATE KEY-----"),
    ("private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----"),
    ("AWS access key", "AKIA" + "ABCDEFGHIJKLMNOP"),
    ("AWS secret key", "aws_secret_access_key = wJalrXUtnFEMI"),
    ("password", "Password: hunter2"),
    ("password", "password='correct horse'"),
    ("password", "pwd=abc123"),
    ("secret", "client secret: s3cr3t"),
    ("database URL with a password", "postgres://admin:pa55@db.example.com/app"),
    ("database URL with a password", "mongodb+srv://user:pw@cluster0.example.net"),
    ("database URL with a password", "MYSQL://root:toor@localhost"),
    ("payment card number", "card 4111 1111 1111 1111"),
    ("payment card number", "4111-1111-1111-1111"),
    ("social security number", "SSN 078-05-1120"),
    ("1Password service account token", "OP_SERVICE_ACCOUNT_TOKEN is ops_eyJ" + A + A + "Zm9v"),
    ("1Password Secret Key", "my secret key: A3-" + "ABC123-DEF456-GHJ78-KLM90-NPQ12-RST34"),
    ("1Password Secret Key", "A3-" + "ABC123-DEF45-GHJ78-KLM90-NPQ12-RST34"),
    ("sealed secret", '{"value": {"annabelleSecret": "whatever"}}'),
]

SAFE = [
    "Prefers dark mode",
    "Lives in Lisbon and works at a bakery",
    "Uses 1Password for all credentials",
    "The password policy at work changed last year",
    "Her phone number is +351 912 345 678",
    "Meeting at 10:30 on 2026-11-21",
    "Likes the sk- prefix jokes",
    "Telegram chat id 123456789",
    "Skiing in the Alps; eyJ is how base64 JSON starts",
    "Account number ends in 1234",
    "The wifi password: op://Home/Wifi/password",
    "Stripe key is in op://Work/Stripe/api/credential",
    "secret=op://Private/Bank/pin?attribute=otp",
    "",
]


@pytest.mark.parametrize(("kind", "text"), SECRETS)
def test_each_kind_of_secret_is_found_and_named(kind: str, text: str) -> None:
    assert find_secret(text) == kind
    assert not is_safe(text)


@pytest.mark.parametrize("text", SAFE)
def test_ordinary_facts_pass_the_filter(text: str) -> None:
    assert find_secret(text) is None
    assert is_safe(text)


def test_every_pattern_has_at_least_one_positive_example() -> None:
    named = {kind for kind, _ in SECRETS}
    assert {pattern.kind for pattern in PATTERNS} <= named


def test_a_refusal_names_the_kind_but_never_echoes_the_secret() -> None:
    secret = "sk-" + A + "zz"
    kind = find_secret(f"my key is {secret}")
    assert kind is not None
    message = refusal("The fact", kind)
    assert "an OpenAI API key" in message
    assert secret not in message and A not in message


def test_redaction_replaces_the_secret_and_keeps_the_rest() -> None:
    text, kinds = redact("use sk-" + A + "qq for the API, and my password: hunter2 ok")
    assert kinds == ["OpenAI API key", "password"]
    assert A not in text and "hunter2" not in text
    assert text.startswith("use [redacted OpenAI API key] for the API")


def test_redaction_removes_a_whole_private_key_block() -> None:
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQQQQ\n-----END OPENSSH PRIVATE KEY-----"
    text, kinds = redact(f"here:\n{block}\nthanks")
    assert kinds == ["private key"]
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in text and "QQQQ" not in text
    assert text == "here:\n[redacted private key]\nthanks"


def _fastest_scan(text: str, rounds: int = 3) -> float:
    import time

    best = float("inf")  # this thread's CPU time: other processes on a busy machine do not count
    for _ in range(rounds):
        started = time.thread_time()
        assert find_secret(text) is None
        best = min(best, time.thread_time() - started)
    return best


def test_the_filter_scans_a_megabyte_in_about_linear_time() -> None:
    # No absolute figure (machines differ, CI is shared); sixteen times the text must not cost much more than
    # sixteen times the time, which a pattern that backtracks over the whole text would.
    sentence = "The quick brown fox jumps over the lazy dog. "
    small = (sentence * 1_500)[: 64 * 1024]
    large = (sentence * 24_000)[: 1024 * 1024]
    assert _fastest_scan(large) < 16 * 4 * _fastest_scan(small)


def test_secrets_are_found_anywhere_inside_a_json_value() -> None:
    assert find_secret_in({"user_info": {"name": "Ana", "notes": ["wifi", "pwd: x1"]}}) == "password"
    assert find_secret_in({"password: hunter2": True}) == "password"
    assert find_secret_in({"tools": ["vim", 3, None], "name": "Ana"}) is None
