"""A vendor's token cut where it was written is hidden whole: hard-wrapped at
a terminal's width (the rest of it on the next lines), split by Python's
implicit concatenation (`'ghp_ab' 'cd…'`, over lines too) or a `+` or `.`
between quoted pieces (`"ghp_ab" + "cd…"`), by
quoted-printable's soft break (`=` ending a line), by Markdown code spans
side by side (`` `ghp_ab``cd…` ``) or by one space. Attack 25 (round 15)
found 37 of 96 such tokens in the note, the state and the database.

Generated: tokens of vendors' shapes, random from a drawn seed, written after
a drawn lead and cut in a drawn way at drawn places (after the vendor's
prefix). Oracle: no run of six of the token's body in what the gate gives,
nor in the note or the state, beyond what a control (the body swapped for
marks) leaves. The gate looks for a cut token where the text has a piece of
one of 16 characters or more (where it looks for tokens at all), or an AWS
key id's prefix in capitals (20 characters: cut 10 + 10, no piece is
long; attack 25 round 15 found those three left); a piece
after a space or a wrapped line reads as random (a digit, or capitals and
small letters), as a token's do and a word's do not.
"""

from __future__ import annotations

import random
import re
import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms import _fold
from test_secret_forms_more import CONTROL, leaked


def _gate_hides(text: str, value: str) -> None:
    """The gate hides something in the text and no run of six of the value
    is left beyond what the text holds with the value replaced."""
    from vibe_vault.redact import DEFAULT

    out, n = DEFAULT.redact(text)
    control, _ = DEFAULT.redact(text.replace(value, CONTROL))
    assert n >= 1 and not leaked(out, control, value), (text, out)


_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits


def _run(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


# (prefix, the body from a seeded generator): vendors' documented shapes.
TOKENS = {
    "ghp_": lambda r: _run(r, _ALNUM, 36),
    "glpat-": lambda r: _run(r, _ALNUM + "_-", 20),
    "sk-ant-api03-": lambda r: _run(r, _ALNUM + "_-", 93) + "AA",
    "xoxb-": lambda r: f"{_run(r, string.digits, 12)}-{_run(r, string.digits, 13)}-"
                       f"{_run(r, _ALNUM, 24)}",
    "sk_live_": lambda r: _run(r, _ALNUM, 24),
    "hvs.": lambda r: _run(r, _ALNUM + "_-", 90),
    "npm_": lambda r: _run(r, _ALNUM, 36),
    "AKIA": lambda r: _run(r, _UPPER, 16),
    "figd_": lambda r: _run(r, _ALNUM + "_-", 40),
    "dckr_pat_": lambda r: _run(r, _ALNUM + "_-", 27),
    "pcsk_": lambda r: f"{_run(r, _ALNUM, 6)}_{_run(r, _ALNUM, 63)}",
    "tskey-auth-": lambda r: f"k{_run(r, _ALNUM, 10)}CNTRL-{_run(r, _ALNUM, 33)}",
}

LEADS = ["", "token: ", "export GITHUB_TOKEN=", "my key is ", "  key = ", "> "]


def _random_piece(piece: str) -> bool:
    return any(c.isdigit() for c in piece) or (
        any(c.isupper() for c in piece[1:]) and any(c.islower() for c in piece))


@st.composite
def cut_tokens(draw: st.DrawFn) -> tuple[str, str]:
    prefix = draw(st.sampled_from(sorted(TOKENS)))
    body = TOKENS[prefix](draw(st.randoms(use_true_random=False)))
    token = prefix + body
    lead = draw(st.sampled_from(LEADS))
    how = draw(st.sampled_from(["wrap", "concat", "concat-lines", "plus", "plus-lines", "dot",
                                "qp", "md", "space"]))
    if how in ("wrap", "qp"):
        # A line cut every `width` characters (quoted-printable's line ends in
        # its `=`), cuts inside the token but not in its prefix.
        width = draw(st.integers(20, 100 if how == "wrap" else 75))
        line = lead + token
        cuts = list(range(width, len(line), width))
        assume(any(c > len(lead) + len(prefix) for c in cuts))
        assume(all(not len(lead) < c <= len(lead) + len(prefix) for c in cuts))
        pieces = [line[i:i + width] for i in range(0, len(line), width)]
        if how == "wrap":
            assume(all(_random_piece(p) for p in pieces[1:]))
            newline = draw(st.sampled_from(["\n", "\r\n"]))
            tail = draw(st.sampled_from(["", "\n", "\nthen restart the app", "\n\nthanks"]))
        else:
            newline = "=\n"
            # (a soft break joins what follows: the token ends with a line's end or a space)
            tail = draw(st.sampled_from(["", "\n", "\nnext line", " ok"]))
        text = newline.join(pieces) + tail
    else:
        at = draw(st.integers(len(prefix) + 1, len(token) - 1))
        a, b = token[:at], token[at:]
        q = draw(st.sampled_from("'\""))
        text = lead + {
            "concat": f"{q}{a}{q} {q}{b}{q}",
            "concat-lines": f"({q}{a}{q}\n    {q}{b}{q})",
            "plus": f"{q}{a}{q} + {q}{b}{q}",  # (Python's, JavaScript's, Java's +)
            "plus-lines": f"({q}{a}{q} +\n    {q}{b}{q})",
            "dot": f"{q}{a}{q} . {q}{b}{q}",  # (PHP's, Perl's)
            "md": f"`{a}``{b}`",
            "space": f"{a} {b}",
        }[how]
        if how == "space":
            assume(_random_piece(b))
    # (a token whose every piece is shorter is not looked for, see above, but
    # an AWS key id's: 20 characters, its prefix in capitals looked for alone)
    assume(prefix == "AKIA" or any(
        len(run) >= 16 for run in re.findall(r"[a-z0-9_\-]+", text.lower())))
    return text, body


@settings(max_examples=examples(150, 1500), deadline=None)
@given(cut_tokens())
def test_the_gate_leaves_no_run_of_six_of_a_cut_token(case: tuple[str, str]) -> None:
    _gate_hides(*case)


PLACES = st.lists(st.sampled_from(["prompt", "answer", "command", "output", "error"]),
                  min_size=1, max_size=3, unique=True)


@settings(max_examples=examples(25, 250), deadline=None)
@given(cut_tokens(), PLACES)
def test_a_cut_token_is_in_no_note_or_state(case: tuple[str, str], where: list[str]) -> None:
    text, body = case
    # (the control swaps each piece: the body is cut in the text)
    pieces = [p for p in re.split(r"[^A-Za-z0-9_\-.]+", text) if len(p) >= 6 and p in body]
    control_text = text
    for p in pieces:
        control_text = control_text.replace(p, CONTROL)
    note, state = _fold(text, where, body)
    control_note, control_state = _fold(control_text, where, CONTROL)
    assert not leaked(note, control_note, body), (text, where)
    assert not leaked(state, control_state, body), (text, where)


# Prose and code around a vendor's prefix, cut the same ways: nothing to hide.
LOOK_ALIKES = [
    "GitHub tokens begin ghp_ and\nthen 36 letters and digits",
    "use 'sk_live_' 'keys' only in production",
    "the prefix `ghp_``ABC` is GitHub's",
    "npm_config_cache=\nnode_modules/.cache",
    "set glpat-\nTOKEN in the CI settings",
    "hvs. tokens are Vault's, like sk_test_ keys are Stripe's",
    "AKIA keys\nstart with AKIA and 16 more",
    "xoxb- tokens\nare bot tokens",
    "sk_test_ environment variable",
    "see ghp_ docs\nAnd more",
    '"AKIA" + "KEYS" are not keys', "AKIA\nIDS are AWS's", "AKIAS 2024 plan",
    "prefix = 'AKIA' 'ASIA'",
]


def test_prose_about_cut_prefixes_redacts_nothing() -> None:
    from vibe_vault.redact import Redactor

    for text in LOOK_ALIKES:
        assert Redactor().redact(text) == (text, 0), text


# A character escaped as JSON, JavaScript or Python write it (`\u003d` for
# `=`) reads as that character: the form it hides is found.
@st.composite
def escaped_forms(draw: st.DrawFn) -> tuple[str, str]:
    rng = draw(st.randoms(use_true_random=False))
    value = _run(rng, _ALNUM, draw(st.integers(12, 24))) + rng.choice(string.digits)
    form = draw(st.sampled_from([
        "password\\u003d{v}", "{{\\u0022password\\u0022:\\u0022{v}\\u0022}}",
        "api_key\\u003a {v}", "DB_PASSWORD\\u003D{v}",
        "\\u0067hp_{g}", "token: \\u0073k-ant-api03-{a}AA"]))
    if "{g}" in form:
        value = _run(rng, _ALNUM, 36)
        return form.replace("{g}", value), value
    if "{a}" in form:
        value = _run(rng, _ALNUM + "_-", 93)
        return form.replace("{a}", value), value
    return form.format(v=value), value


@settings(max_examples=examples(60, 600), deadline=None)
@given(escaped_forms())
def test_a_form_behind_unicode_escapes_is_found(case: tuple[str, str]) -> None:
    _gate_hides(*case)


def test_text_with_unicode_escapes_and_no_secret_is_left() -> None:
    from vibe_vault.redact import Redactor

    for text in ('{"msg": "caf\\u00e9 ok"}', "C:\\users\\u00e9", "\\u0041\\u0042 done",
                 'print("\\u2713 passed")'):
        assert Redactor().redact(text) == (text, 0), text


# Vendors' tokens attack 25 found with no rule, or a rule too narrow: BIP32
# extended keys of any letters and digits (after a letter of another script
# too: `日本xprv…`), Dropbox's `sl.` and Databricks' `dsapi`.
@st.composite
def more_tokens(draw: st.DrawFn) -> tuple[str, str]:
    rng = draw(st.randoms(use_true_random=False))
    kind = draw(st.sampled_from(["xprv", "sl", "sl.u", "dsapi"]))
    body = {
        "xprv": lambda: "9s21ZrQH143K" + _run(rng, _ALNUM, 95),
        "sl": lambda: _run(rng, _ALNUM + "_-", draw(st.integers(130, 160))),
        "sl.u": lambda: _run(rng, _ALNUM + "_-", draw(st.integers(200, 400))),
        "dsapi": lambda: _run(rng, "0123456789abcdef", 32),
    }[kind]()
    token = {"xprv": "xprv", "sl": "sl.", "sl.u": "sl.u.", "dsapi": "dsapi"}[kind] + body
    before = draw(st.sampled_from(["", "日本", "é", "Ω", "«", "{", "=\"", "$", "key: ", "_"]))
    after = draw(st.sampled_from(["", "語", "é", "»", "}", "\"", ".", " ok"]))
    return before + token + after, body


@settings(max_examples=examples(60, 600), deadline=None)
@given(more_tokens())
def test_more_vendor_tokens_are_hidden(case: tuple[str, str]) -> None:
    _gate_hides(*case)


# A hook must never hang: a text of cut tokens (or of prefixes and cuts) over
# and over is read in time growing with its length, as test_gate_worst's texts.
CUT_UNITS = [
    "ghp_aB1cD2eF3gH4iJ5kL6\n", "ghp_aB1cD2eF3gH4iJ5kL6 ", "'ghp_aB1cD2eF3gH4iJ5kL6' ",
    "ghp_aB1cD2eF3gH4iJ5kL6=\n", "`ghp_aB1cD2eF3gH4iJ5kL6``", "sk-ant-api03-aB1aB1aB1aB1aB1aB1\n",
    "xoxb-1234567890-\n", "ghp_", "ghp_1", "ghp_aB1cD2eF3gH4iJ5kL6\nx ", "glpat-aB1cD2eF3gH4iJ5kL6 1A",
    "hvs.aB1cD2eF3gH4iJ5kL6'\n'", "AKIA" + "B1" * 8 + "\n", "sk_live_aB1cD2eF3gH4iJ5kL6 \n",
    "'AKIAB1B1B1' + '", "AKIAB1B1B1\n", "'ghp_aB1cD2eF3gH4iJ5kL6' .\n", "AKIA",
]


def _least_time(text: str) -> float:
    import time

    from vibe_vault.redact import Redactor

    best = float("inf")
    for _ in range(3):
        redactor = Redactor()
        start = time.process_time()
        redactor.redact(text)
        best = min(best, time.process_time() - start)
    return best


def test_cut_tokens_over_and_over_are_read_in_linear_time() -> None:
    grown = {}
    for unit in CUT_UNITS:
        short, long = ((unit * (size // len(unit) + 1))[:size] for size in (2_000, 32_000))
        growth = _least_time(long) / max(_least_time(short), 1e-6)
        if growth > 64:  # (x16 is linear; again, in case the machine was busy)
            growth = _least_time(long) / max(_least_time(short), 1e-6)
        if growth > 64:
            grown[unit] = round(growth)
    assert not grown, grown
