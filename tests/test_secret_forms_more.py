"""Secret forms an attacker found passing the gate (attack 22), by class:
a token as a URL's user, a token glued into a name by `_` on both sides, an
Anthropic key wrapped onto a second line, a private key's header spelled in
lower case or with runs of spaces.

Generated: each class's spellings x values of several alphabets (letters
only, lower case only, letters and digits, with punctuation, as the form
allows) x surroundings. Oracle: no run of 6 characters of the value (which
the test drew) is left in what the gate returns, nor in the note and the
state folded from a session that says it in several places.
"""

from __future__ import annotations

import re
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms import _fold
from vibe_vault.redact import _DOCUMENTED_EXAMPLES

_ALNUM = string.ascii_letters + string.digits
Values = st.SearchStrategy[str]


def runs_of_six(value: str) -> list[str]:
    return [value[i:i + 6] for i in range(len(value) - 5)]


def shown(out: str | bytes, value: str) -> list[str]:
    """The runs of 6 characters of `value` that `out` still holds."""
    if isinstance(out, bytes):
        return [r for r in runs_of_six(value) if r.encode() in out]
    return [r for r in runs_of_six(value) if r in out]


def shown_beyond(out: str, text: str, value: str, runs: list[str]) -> list[str]:
    """Of `runs` (of `value`), those `out` shows more often than `text` does
    with the value taken out: a run the text holds anyway is the text's own
    (`asswor` of a label `password`, `phrase` of `wpa_passphrase`)."""
    rest = text.replace(value, "\0")
    return [r for r in runs if out.count(r) > rest.count(r)]


# What a value is swapped for to see which of its runs the output would hold
# anyway (`action` of `AAAAaction` is a word of the note around it).
CONTROL = "\u2063" * 6


def leaked(out: str | bytes, control: str | bytes, value: str) -> list[str]:
    """The runs of 6 of `value` in `out` that are not in `control` (the same
    output with the value swapped for CONTROL)."""
    ambient = set(shown(control, value))
    return [r for r in shown(out, value) if r not in ambient]


def drawn(alphabet: str, low: int, high: int) -> Values:
    """A random run of `alphabet`: a letter and a digit in it where the
    alphabet has both, as a token has."""
    def random_enough(v: str) -> bool:
        return all(any(test(c) for c in v) or not any(test(c) for c in alphabet)
                   for test in (str.isdigit, str.isalpha))
    # (hypothesis also draws the literals of the code under test: AWS's documented
    # example key, which the gate leaves by design, is no random run)
    return st.text(alphabet, min_size=low, max_size=high).filter(
        lambda v: random_enough(v) and v not in _DOCUMENTED_EXAMPLES)


# A name in words (`deploymentbot`, `JohnSmith`, `x-access-token`), which the
# README leaves as a URL's user; a drawn value of that shape is no token.
_A_NAME = re.compile(r"(?:(?:[a-z]{1,16}|[A-Z][a-z]{2,15})(?:[A-Z][a-z]{2,15})*\d{0,4}"
                     r"(?:[_\-]+|\Z))+")

URL_USERS = st.one_of(
    drawn(_ALNUM, 12, 40),  # letters and digits
    drawn(string.ascii_letters, 12, 40),  # letters only
    drawn(string.ascii_lowercase, 17, 40),  # lower case only (a word is up to 16)
    drawn(_ALNUM + "_-", 12, 40).filter(lambda v: v[0].isalnum()),  # with `_` and `-`
).filter(lambda v: not _A_NAME.fullmatch(v))

GLUED_PREFIXES = (("ghp_", _ALNUM, 36), ("gho_", string.ascii_letters, 36),
                  ("npm_", _ALNUM, 36), ("hf_", _ALNUM, 34), ("gsk_", _ALNUM, 52),
                  ("lin_api_", _ALNUM, 40), ("glpat-", _ALNUM + "_-", 20),
                  ("sk-ant-api03-", _ALNUM + "_-", 95), ("AKIA", string.ascii_uppercase, 16))


@st.composite
def glued(draw: st.DrawFn) -> tuple[str, str]:
    prefix, alphabet, size = draw(st.sampled_from(GLUED_PREFIXES))
    body = draw(drawn(alphabet, size, size))
    spelling = draw(st.sampled_from([
        "x_{t}_y", "/home/dev/r2/backup_{t}_old.json", "cp {t}_notes.txt /tmp",
        "KEY_{t}_2", "see old_{t}_", "{t}_bak"]))
    return spelling.replace("{t}", prefix + body), body


@st.composite
def url_user(draw: st.DrawFn) -> tuple[str, str]:
    v = draw(URL_USERS)
    spelling = draw(st.sampled_from([
        "git clone https://{v}@github.com/org/repo.git", "https://{v}@github.com/o/r",
        "git remote add origin https://{v}:x-oauth-basic@github.com/o/r.git",
        "pip install git+https://{v}@github.com/o/r.git", "http://{v}@gitlab.example.com/x"]))
    return spelling.replace("{v}", v), v


@st.composite
def wrapped_key(draw: st.DrawFn) -> tuple[str, str]:
    """An Anthropic key (108 characters) cut at a column short of its end, the
    rest on the next line, as a terminal or an editor wraps it."""
    body = draw(drawn(_ALNUM + "_-", 93, 93)) + "AA"
    key = "sk-ant-api03-" + body
    cut = draw(st.integers(40, 99))
    newline = draw(st.sampled_from(["\n", "\r\n", "\n  "]))
    before = draw(st.sampled_from(["", "ANTHROPIC_API_KEY=", "my key:\n", "export X="]))
    after = draw(st.sampled_from(["", "\n", "\nthen restart", "\n\nthanks"]))
    return before + key[:cut] + newline + key[cut:] + after, body


@st.composite
def pem(draw: st.DrawFn) -> tuple[str, str]:
    """A private key whose header and footer are in any case, with runs of
    spaces or tabs between their words."""
    kind = draw(st.sampled_from(["RSA ", "EC ", "OPENSSH ", "DSA ", "ENCRYPTED ", ""]))
    words = (kind + "PRIVATE KEY").split()
    gap = draw(st.sampled_from([" ", "  ", "   ", "\t", " \t"]))
    case = draw(st.sampled_from([str.upper, str.lower, str.title]))
    label = case(gap.join(words))
    lines = draw(st.lists(drawn(_ALNUM + "+/", 64, 64), min_size=1, max_size=5))
    body = "\n".join(lines)
    dashes = draw(st.sampled_from(["-----", "----"]))
    head = f"{dashes}{case('begin')}{gap}{label}{dashes}"
    foot = f"{dashes}{case('end')}{gap}{label}{dashes}"
    before = draw(st.sampled_from(["", "here is the key:\n", "$ cat id_rsa\n"]))
    after = draw(st.sampled_from(["", "\n", "\nthanks"]))
    return before + head + "\n" + body + "\n" + foot + after, "".join(lines)


# Values of the forms that name a secret: letters only, lower case only,
# letters and digits, or with punctuation (as the way it is written allows:
# `bare` YAML's bare word, `shell` a shell's, `single` in '…', `double` in "…", `xml`
# an element's text).
_PUNCT = {"bare": "!%+-.:=@^_~*?/", "shell": "%+-.:=@^_~/", "single": "!%+-.:=@^_~#*?,/&|;()[]{}\" ",
          "double": "!%+-.:=@^_~#*?,/&|;()[]{}' ", "xml": "!%+-.:=@^_~#*?,/|;()[]{}'\" "}
_NAME_IN_CAPITALS = re.compile(r"[A-Z]+\d{0,2}(?:_[A-Z]+\d{0,2})+")


def named_value(how: str) -> Values:
    def random_enough(v: str) -> bool:  # (what no reader takes for a word or a placeholder)
        # (nor code: `A00012(` reads as a call whose `)` was cut off, left as code is)
        return (len(set(v)) >= 5 and v.strip() == v and "  " not in v and ".." not in v
                and not re.match(r"[A-Za-z_]\w*\(", v)
                and not _NAME_IN_CAPITALS.fullmatch(v) and v[0] not in "&|>-#{*")
    return st.one_of(drawn(string.ascii_letters, 10, 24), drawn(string.ascii_lowercase, 10, 24),
                     drawn(_ALNUM, 10, 24), drawn(_ALNUM + _PUNCT[how], 10, 24)).filter(
        random_enough)


STRUCTURED: tuple[tuple[str, str], ...] = (
    ("export DB_PASSWORD=$'{v}'", "single"), ("export API_TOKEN=$'{v}'", "single"),
    ("os.getenv('API_KEY', '{v}')", "single"), ('os.environ.get("DB_PASSWORD", "{v}")', "double"),
    ("ENV.fetch('SECRET_TOKEN', '{v}')", "single"), ("env('DB_PASSWORD', '{v}')", "single"),
    ("git config --global github.token {v}", "shell"),
    ("git config hub.oauthtoken '{v}'", "single"), ('git config --local x.password "{v}"', "double"),
    ("<password>{v}</password>", "xml"), ("<clientSecret>{v}</clientSecret>", "xml"),
    ("<server><id>x</id><username>bob</username><password>{v}</password></server>", "xml"),
    ("<ApiKey>{v}</ApiKey>", "xml"), ('<add key="ApiKey" value="{v}" />', "double"),
    ("<add key='DbPassword' value='{v}'/>", "single"),
    ('env:\n  - name: API_SECRET\n    value: "{v}"', "double"),
    ("- name: DB_PASSWORD\n  value: {v}", "bare"), ("- name: API_TOKEN\n  value: '{v}'", "single"),
    ('{"name": "API_KEY", "value": "{v}"}', "double"),
    ("password: |\n  {v}\n", "single"), ("db:\n  password: >-\n    {v}\n  user: app", "single"),
    ("password: &pw {v}", "bare"), ("api_token: &tok '{v}'", "single"),
    ("requests.get(url, auth=('admin', '{v}'))", "single"),
    ('HTTPBasicAuth("admin", "{v}")', "double"),
)


@st.composite
def structured(draw: st.DrawFn) -> tuple[str, str]:
    spelling, how = draw(st.sampled_from(STRUCTURED))
    # (a bare word of letters after `password: ` may be one saying what it is,
    # `password: required`, which the README leaves: bare values hold a digit)
    v = draw(named_value(how).filter(lambda v: how != "bare" or any(c.isdigit() for c in v)))
    before = draw(st.sampled_from(["", "run this:\n", "# settings\n"]))
    after = draw(st.sampled_from(["", "\n", "\nthen restart the app"]))
    return before + spelling.replace("{v}", v) + after, v


def _bits(v: str) -> float:
    """Shannon entropy a character (gitleaks' measure of a generic key)."""
    from collections import Counter
    from math import log2

    return -sum(n / len(v) * log2(n / len(v)) for n in Counter(v).values())


# A key said in prose must look like one (README): a letter and a digit, 3.5
# bits a character or more, not a hex digest.
PROSE_KEYS = st.one_of(drawn(_ALNUM, 16, 40), drawn(string.ascii_lowercase + string.digits, 16, 40),
                       drawn(_ALNUM + "_-+/=", 16, 40).filter(lambda v: v[0].isalnum()
                                                              and v[-1].isalnum())).filter(
    lambda v: _bits(v) >= 3.5 and not re.fullmatch(r"[0-9a-f]+", v))


@st.composite
def prose(draw: st.DrawFn) -> tuple[str, str]:
    spelling = draw(st.sampled_from([
        "the API key is {v}", "The API key is {v}.", "my access key is {v}, thanks",
        "the token for staging was {v}", "Mein Token lautet {v}", "Der API-Schlüssel ist {v}.",
        "la clé API est {v}", "le jeton est {v}", "the secret key is: {v}",
        "key id AKIAZ7QW3RT5YU2IO4PA secret {k}", "the aws secret key is {k} for prod"]))
    if "{k}" in spelling:  # an AWS secret: 40 of base64, both cases
        v = draw(drawn(_ALNUM + "+/", 40, 40).filter(
            lambda k: any(c.islower() for c in k) and any(c.isupper() for c in k)))
        return spelling.replace("{k}", v), v
    v = draw(PROSE_KEYS)
    return spelling.replace("{v}", v), v


CLASSES: dict[str, Any] = {"url-user": url_user(), "glued": glued(), "wrapped": wrapped_key(),
                           "pem": pem(), "structured": structured(), "prose": prose()}


def _check_gate(case: tuple[str, str]) -> None:
    from vibe_vault.redact import DEFAULT

    text, v = case
    out, n = DEFAULT.redact(text)
    assert n >= 1 and not leaked(out, DEFAULT.redact(text.replace(v, CONTROL))[0], v), (
        text, out)


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_the_value(case: tuple[str, str]) -> None:
    _check_gate(case)


# (not the title: Claude Code's title is one line of words, which a wrapped
# key or a key block never is)
PLACES = st.lists(st.sampled_from(["prompt", "answer", "command", "output", "error"]),
                  min_size=1, max_size=3, unique=True)


@settings(max_examples=examples(25, 250), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_the_value_is_in_no_note_or_state(case: tuple[str, str],
                                                 where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


def test_a_users_name_in_a_url_is_left() -> None:
    from vibe_vault.redact import DEFAULT

    for text in ("https://user@example.com/repo", "https://jenkins_deploy@ci.example.com/x",
                 "https://deploymentbot@git.example.com/r", "ssh://git@github.com/o/r",
                 "https://JohnSmith@bitbucket.org/team/repo.git",
                 "git clone https://x-access-token@github.com/o/r",
                 "https://deploy01@git.example.com/r"):
        assert DEFAULT.redact(text) == (text, 0), text


def test_structured_look_alikes_redact_nothing() -> None:
    from vibe_vault.redact import DEFAULT

    for text in ("<passwordPolicy>strong</passwordPolicy>", "<token>${TOKEN}</token>",
                 '<add key="ApiKey" value="$(ApiKey)" />', '<add key="Theme" value="darkmode" />',
                 "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db",
                 "- name: LOG_LEVEL\n  value: debugging", "os.getenv('API_KEY', None)",
                 "os.getenv('API_KEY', 'your-key-here')", "os.getenv('HOME', '/home/me')",
                 "git config --global --unset github.token", "git config --get github.token",
                 "git config user.name 'Jane Doe'", "requests.get(url, auth=('admin', password))",
                 "auth=(user, pw)", "password: |\n  ${DB_PASSWORD}\n"):
        assert DEFAULT.redact(text) == (text, 0), text


def test_prose_about_keys_redacts_nothing() -> None:
    from vibe_vault.redact import DEFAULT

    for text in ("the API key is stored in the vault", "the token is expired",
                 "the API key is required for every request.", "the token is 0123456789abcdef",
                 "Das Token ist abgelaufen.", "la clé API est obligatoire",
                 "the key is in ~/.config/app.toml", "the token is valid_until_tomorrow",
                 "the access key is AKIA-style, twenty characters"):
        assert DEFAULT.redact(text) == (text, 0), text


def test_a_full_key_on_its_line_does_not_take_the_next_line() -> None:
    from vibe_vault.redact import DEFAULT

    key = "sk-ant-api03-" + "Ab3Cd6Ef9G" * 9 + "xyzAA"
    out, n = DEFAULT.redact(key + "\nDone")
    assert out == "[REDACTED:anthropic-key]\nDone" and n == 1


@st.composite
def nested_private(draw: st.DrawFn) -> tuple[str, str]:
    """A value inside a `<private>` span that holds other spans, before or
    after them, at any depth; text around it."""
    v = draw(drawn(_ALNUM, 10, 24))
    opening = draw(st.sampled_from(["<private>", "<PRIVATE>", '<private reason="x">']))
    inner = "x"
    for _ in range(draw(st.integers(1, 3))):
        inner = f"<private>{inner}</private>"
    body = draw(st.sampled_from([inner + v, v + inner, inner + " " + v + " " + inner]))
    closing = draw(st.sampled_from(["</private>", "</PRIVATE>", ""]))
    before = draw(st.sampled_from(["", "note: ", "a <private>b</private> then "]))
    after = draw(st.sampled_from(["", " and the rest", "\nmore"]))
    return before + opening + body + closing + after, v


@settings(max_examples=examples(100, 1000), deadline=None)
@given(nested_private())
def test_a_nested_private_span_is_hidden_whole(case: tuple[str, str]) -> None:
    from vibe_vault.text import PRIVATE_MARK, hide_private

    text, v = case
    out, spans = hide_private(text)
    assert not shown(out, v) and PRIVATE_MARK in out, (text, out)
    assert any(v in span for span in spans)


@settings(max_examples=examples(10, 100), deadline=None)
@given(nested_private(), PLACES.filter(lambda where: "prompt" in where))
def test_folded_a_nested_private_value_is_in_no_note_or_state(
        case: tuple[str, str], where: list[str]) -> None:
    text, v = case
    note, state = _fold(text, where, v)
    control_note, control_state = _fold(text.replace(v, CONTROL), where, CONTROL)
    assert not leaked(note, control_note, v) and not leaked(state, control_state, v), text
