"""No secret reaches the vault, the state, the log, an index or a command's
output, whatever field of the transcript or the hook input carries it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Env
from secrets_corpus import LOOK_ALIKES, forms
from vibe_vault.redact import Redactor

FORMS = forms()


def test_the_secrets_corpus_is_large_and_varied() -> None:
    assert len(FORMS) >= 60
    assert len({kind for kind, _, _ in FORMS}) == len(FORMS)


@pytest.mark.parametrize(("kind", "text", "secret"), FORMS, ids=[f[0] for f in FORMS])
def test_each_form_is_redacted(kind: str, text: str, secret: str) -> None:
    out, count = Redactor().redact(text)
    assert secret not in out, out
    assert count >= 1


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == (text, 0)
