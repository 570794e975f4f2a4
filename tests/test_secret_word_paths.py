"""A key's or a token's name given a path of words is not given a secret.

Review 30 (09e82c6a, entireio/entire-graph): a test's output
`"repo_key":"local/001"` was shown as `"repo_key":"[REDACTED:secret-assignment]"`,
and the error the user read lost the one value that said which repository
failed. A path of words and short numbers (`local/001`, `gh/team/brain`,
`v1/linux/deps`, an AWS secret's id `prod/db/main`, a template's
`gh/<owner>/<repo>`: review 31, 306fb219) names where a thing is kept; a key
or a token is random.

Generated: names of keys and tokens in every style x JSON, `=`, `:` and a
quoted assignment x paths of two to four ordinary words and numbers: left
whole, nothing counted. The class beside it, hidden: the same names and places
given random values that hold a `/`, and passwords given a path of words (a
password may be words).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_small_leaks import _hidden, shannon_bits, token
from vibe_vault.redact import DEFAULT

NAMES = ["repo_key", "cache_key", "sort_key", "object_key", "idempotencyKey", "api_key",
         "SECRET_KEY", "token", "auth_token", "secret_id", "partitionKey", "ACCESS_KEY"]
# (the names whose random value is a secret: an idempotency or a sort key is not)
SECRETS = ["api_key", "SECRET_KEY", "token", "auth_token", "ACCESS_KEY", "client_secret"]
PASSWORDS = ["password", "db_password", "PASSWD", "userPassword"]
WORDS = ["local", "main", "prod", "staging", "cache", "linux", "deps", "brain", "release",
         "users", "orders", "images", "assets", "build", "config", "entire", "docs", "team",
         "north", "payments", "graph", "api", "db", "gh", "v1", "v2", "data", "mirror"]
FORMS = ['{{"{n}":"{v}"}}', "{n}={v}", "{n}: {v}", '{n} = "{v}"', "  {n}: '{v}'\n"]

segment = st.one_of(st.sampled_from(WORDS), st.sampled_from(WORDS).map(lambda w: f"<{w}>"),
                    st.integers(0, 9999).map(str),
                    st.integers(0, 999).map(lambda n: f"{n:03d}"))
word_path = st.lists(segment, min_size=2, max_size=4).map("/".join)


@settings(max_examples=examples(150, 500), deadline=None)
@given(name=st.sampled_from(NAMES), form=st.sampled_from(FORMS), value=word_path)
def test_a_path_of_words_given_a_keys_name_is_left_whole(name: str, form: str,
                                                         value: str) -> None:
    text = form.format(n=name, v=value)
    out, n = DEFAULT.redact(text)
    assert (out, n) == (text, 0)


@st.composite
def random_with_a_slash(draw: st.DrawFn) -> str:
    v = draw(token(14, 32).filter(lambda v: shannon_bits(v) >= 3.5))
    cut = draw(st.integers(4, len(v) - 4))
    return v[:cut] + "/" + v[cut:]


@settings(max_examples=examples(150, 500), deadline=None)
@given(name=st.sampled_from(SECRETS), form=st.sampled_from(FORMS), value=random_with_a_slash())
def test_a_random_value_with_a_slash_is_still_hidden(name: str, form: str, value: str) -> None:
    _hidden(form.format(n=name, v=value), [value])


@settings(max_examples=examples(100, 300), deadline=None)
@given(name=st.sampled_from(PASSWORDS), form=st.sampled_from(FORMS),
       value=word_path.filter(lambda v: len(v) >= 8))  # (shorter: no password, by design)
def test_a_password_of_words_and_a_slash_is_still_hidden(name: str, form: str,
                                                         value: str) -> None:
    text = form.format(n=name, v=value)
    out, n = DEFAULT.redact(text)
    assert n >= 1 and value not in out, (text, out)


def test_the_sessions_reviews_30_and_31_found() -> None:
    text = 'Error: graph: open {"repo_key":"local/001","path":"/tmp/x"}: no such file'
    assert DEFAULT.redact(text) == (text, 0)
    text = "(adds `repo_key=gh/<owner>/<repo>`, `no_egress=true` in doctor)"  # (a template)
    assert DEFAULT.redact(text) == (text, 0)
