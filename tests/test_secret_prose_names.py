"""A secret said in prose by a name beyond password, token and key: `the
signing key is X`, `the webhook secret was X`, `our jwt secret → X`, `the
passkey is X`, `the admin pass is X`, `here are the creds — admin / X`.
Attack 26 found 35 such names' values whole in the note, the state and the
database. The names are a class (a word saying what the key or the
secret is for, then `key` or `secret`), not one rule a name.

Generated: use x head x spelling x article x connector x random value.
Oracle: no run of six of the value in the gate's output. Look-alikes: the
same sentences saying something about the secret (a word, a sentence) stay
whole.
"""

from __future__ import annotations

import random
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_more import runs_of_six, shown_beyond
from vibe_vault.redact import Redactor

# (the uses attack 26 tried, and more of the kind)
USES = ["signing", "master", "encryption", "webhook", "jwt", "shared", "app", "consumer",
        "session", "hmac", "kms", "license", "unlock", "csrf", "deploy", "recovery", "cookie",
        "bootstrap", "oauth", "django"]
HEADS = ["key", "secret"]
SEPS = [" ", "_", "-"]
# (not `: `: after an English name a colon is the assignment rules', which
# read `signing_key: X` but not yet `signing key: X`)
CONNECTORS = [" is ", " was ", " is now ", " → ", " has been rotated to "]
_ALNUM = string.ascii_letters + string.digits


@st.composite
def secret_values(draw: st.DrawFn) -> str:
    # A random value as a generator makes one (a shrunk `000000000AAAA2` is
    # a number with letters: the gate leaves such a one after "is").
    rng = random.Random(draw(st.integers(0, 2**32)))
    body = "".join(rng.choices(_ALNUM, k=draw(st.integers(12, 40))))
    return body + rng.choice("ABCDEFGHJKQXZ") + rng.choice("23456789")


def _left(out: str) -> str:
    return re.sub(r"\[REDACTED:[^\]]*\]", "", out)


def _shown(out: str, text: str, v: str) -> list[str]:
    """The value's runs of six the gate's output shows more often than the
    text does without the value (a name's own letters, `password`'s `asswor`,
    are the text's, not the value's)."""
    return shown_beyond(_left(out), text, v, runs_of_six(v))


@settings(max_examples=examples(80, 600), deadline=None)
@given(use=st.sampled_from(USES), head=st.sampled_from(HEADS), sep=st.sampled_from(SEPS),
       upper=st.booleans(), article=st.sampled_from(["the ", "our ", "my ", "The ", ""]),
       connector=st.sampled_from(CONNECTORS), v=secret_values())
def test_a_qualified_key_or_secret_said_in_prose_is_hidden(
        use: str, head: str, sep: str, upper: bool, article: str, connector: str,
        v: str) -> None:
    name = use + sep + head
    name = name.upper() if upper else name
    text = f"{article}{name}{connector}{v} and then restart"
    out, _ = Redactor().redact(text)
    assert not _shown(out, text, v), (text, out)


@settings(max_examples=examples(30, 200), deadline=None)
@given(said=st.sampled_from([
    "the passkey is {v}", "the pre-shared key is {v}", "here are the creds — admin / {v}",
    "the admin pass is {v}", "the root pass is {v}", "the signing keys are {v}"]),
    v=secret_values())
def test_a_passkey_an_admin_pass_or_a_pair_is_hidden(said: str, v: str) -> None:
    text = said.format(v=v)
    out, _ = Redactor().redact(text)
    assert not _shown(out, text, v), (text, out)


@settings(max_examples=examples(60, 300), deadline=None)
@given(use=st.sampled_from(USES), head=st.sampled_from(HEADS), said=st.sampled_from([
    "the {n} is rotated monthly", "the {n} is stored in KMS", "the {n} is missing",
    "the {n} is required", "the {n} is derived per connection", "the {n} was changed",
    "set the {n} in the environment", "the {n}: see the vault", "the {n} is too short"]))
def test_a_sentence_about_the_secret_stays_whole(use: str, head: str, said: str) -> None:
    text = said.format(n=f"{use} {head}")
    assert Redactor().redact(text) == (text, 0)


def test_words_that_are_only_qualifiers_stay_whole() -> None:
    for text in ["git checkout master", "the session ended", "creds — see the vault / ask ops",
                 "the secret is to keep it short", "credentials are in the vault",
                 "the admin password is required", "user pass through mode",
                 "vault login -method=userpass username=bob",
                 "credentials file: ~/.aws/credentials; credentials localhost:10000"]:
        assert Redactor().redact(text) == (text, 0), text
