"""The redactor: each kind of secret found, look-alikes left, the user's allow
list and patterns, and its fast paths equal to the plain patterns."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vibe_vault.redact import Redactor

SECRETS = {
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "gitlab-token": "glpat-" + "Abc123Def456Ghi789Jk",
    "anthropic-key": "sk-ant-api03-" + "x" * 40,
    "openai-key": "sk-proj-" + "Ab3" * 12,
    "google-api-key": "AIza" + "SyD" * 11 + "xx",
    "slack-token": "xoxb-1234567890-abcdefghijkl",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind,secret", SECRETS.items())
def test_redactor_finds_each_kind(kind: str, secret: str) -> None:
    text, n = Redactor().redact(f"use {secret} here")
    assert secret not in text and n == 1
    assert "[REDACTED:" in text


def test_redactor_assignments_urls_and_keys() -> None:
    r = Redactor()
    for raw, gone in [
        ("export DB_PASSWORD=hunter2Secret!", "hunter2Secret!"),
        ("postgres://admin:s3cr3tPass@db:5432/app", "s3cr3tPass"),
        ('{"api_key": "Zx81kQ02pLm"}', "Zx81kQ02pLm"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ]:
        text, n = r.redact(raw)
        assert gone not in text and n >= 1, raw


def test_redactor_leaves_look_alikes() -> None:
    r = Redactor()
    for text in ["commit 6322cf4a9b1e0c7d5f3a2b1c0d9e8f7a6b5c4d3e",
                 "session c64cc478-3430-40fe-8e9c-4ee9986e9754",
                 "integrity sha512-Jz8Cw7gPOkGxHbqWm1aKNsWqTz2x3zOa4Y3w5VdNkYpQy==",
                 "token = None", "password: str", "secret=os.environ['X']"]:
        assert r.redact(text) == (text, 0), text


def test_redactor_allow_list_and_extra_patterns() -> None:
    r = Redactor(extra=[("internal", r"itk_[a-z0-9]{8}")], allow=["AKIAIOSFODNN7EXAMPLE"])
    text, n = r.redact("AKIAIOSFODNN7EXAMPLE and itk_abcd1234")
    assert "AKIAIOSFODNN7EXAMPLE" in text and "[REDACTED:internal]" in text and n == 1


_PIECES = st.sampled_from([
    "password", "PASSWORD", "Token", "api_key", "secret", "AWS_SECRET_ACCESS_KEY", "Bearer",
    "authorization: bearer", " = ", ": ", "=", '"', "'", " ", "\n", "os.environ['X']",
    "hunter2Secret!", "Zx81kQ02pLmQ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "eyJhbGciOiJIUzI1NiJ9", "İstanbul", "ß", "x" * 30, "None", "test",
])


@settings(max_examples=500)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_folded_redaction_equals_case_insensitive_patterns(text: str) -> None:
    """Running the (?i) rules as plain patterns on the lower-cased text gives
    exactly what the (?i) patterns give on the text itself."""
    fast = Redactor()
    reference = Redactor()
    reference._folded = {}
    assert fast.redact(text) == reference.redact(text)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["a", "Zm9v", "+/", " ", "\n", "\t", "x" * 37, "=", "\x0b",
                                 "\u2028", "é", "data:image/png;base64,"]), max_size=120)
       .map("".join))
def test_clean_shortcuts_change_nothing(text: str) -> None:
    """The cheap pre-checks in clean() never change its result."""

    from vibe_vault import text as tx

    expected = re.sub(tx._BASE64_RUN, "[base64 data]",
                      re.sub(tx._DATA_URI, "[base64 data]", text)).translate(tx._CONTROL)
    assert tx.clean(text) == expected
