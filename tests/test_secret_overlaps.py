"""Two secret forms the gate knows, overlapping or side by side, are both
hidden whole. Each rule runs on the text the rules before it left, so a
rule whose match an earlier rule's marker cut found nothing: a Dropbox
`sl.` token whose body holds `_MII…` lost that part to the private-key rule
(a DER key's base64 begins `MII`) and its first part showed (CI drew
'sl.aaa…_MIIaaa…'). The gate now hides the union of overlapping matches.

Generated: two of the table's own forms (secret_rules.RULES' samples, filled
from a drawn seed), in either order: a form's value going on into a token
(`…_` + a token the gate knows alone: the first rule's match may take it,
or stop before it), two tokens side by side (glued by a separator, or a
space), or two forms on lines one after the other. Oracle: no run of six of
either value (the test filled them) is in what the gate gives, beyond what
the text with both values swapped for marks gives.
"""

from __future__ import annotations

import random
import re
import string
from functools import cache

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_more import CONTROL
from test_secret_forms_more import leaked as _leaked_in

_MARKER = re.compile(r"\[REDACTED:[^\]\[]*\]|\[REDACTED:")


_ARMOUR = re.compile(r"-----[A-Z ]+-----")


def leaked(out: str, control: str, value: str) -> list[str]:
    """test_secret_forms_more.leaked, the markers' own words left out
    (`[REDACTED:github-token]` holds no part of a token `github_pat_…`), and
    a key's armour lines (`-----END RSA PRIVATE KEY-----`: no secret)."""
    out, control = _MARKER.sub("\0", out), _MARKER.sub("\0", control)
    return [run for piece in _ARMOUR.split(value) for run in _leaked_in(out, control, piece)]


_ALNUM = string.ascii_letters + string.digits


@cache
def _forms() -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The table's samples (rule, sample) with a value of six characters or
    more, and of them those whose value alone is a form the gate knows (a
    token with its vendor's prefix, a key's body): those can go on from
    another's value."""
    from vibe_vault.redact import Redactor
    from vibe_vault.secret_rules import RULES, samples

    gate = Redactor()
    forms, tokens = [], []
    for i, rule in enumerate(RULES):
        for j, sample in enumerate(samples(rule)):
            if len(sample.secret) < 6:
                continue
            forms.append((i, j))
            if any(c.isspace() for c in sample.secret):
                continue  # (a seed phrase, a key's lines: no token)
            out, n = gate.redact(sample.secret)
            if n and not leaked(out, CONTROL, sample.secret):
                tokens.append((i, j))
    return forms, tokens


def _RULE_ID(form: tuple[int, int]) -> str:
    from vibe_vault.secret_rules import RULES

    return RULES[form[0]].id


def _filled(form: tuple[int, int], seed: int) -> tuple[str, str]:
    from vibe_vault.secret_rules import RULES, expand

    i, j = form
    sample = expand(RULES[i].samples[j], random.Random(seed))
    return sample.text, sample.secret


def _shaped(value: str, rng: random.Random) -> str:
    """A value of the same shape, no form: each letter another of its case,
    each digit another digit (a vendor's prefix too), the rest as it is."""
    return "".join(rng.choice(string.ascii_lowercase) if c.islower() and c.isascii()
                   else rng.choice(string.ascii_uppercase) if c.isupper() and c.isascii()
                   else rng.choice(string.digits) if c.isdigit() else c for c in value)


def _hidden_whole(text: str, value: str) -> bool:
    from vibe_vault.redact import Redactor

    out, _ = Redactor().redact(text)
    return not leaked(out, CONTROL, value)


@st.composite
def two_forms(draw: st.DrawFn) -> tuple[str, str, str]:
    """Two forms and their values, in a text where each form next to a
    value of the other's shape that is no form (`_shaped`) is hidden whole:
    a form whose value may not go on (a key of a fixed length, base64 that
    takes a `/` in) is another form, or none, when it does."""
    forms, tokens = _forms()
    how = draw(st.sampled_from(["goes-on", "tokens", "lines"]))
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    if how == "lines":
        (a, va), (b, vb) = (_filled(draw(st.sampled_from(forms)), seed + k) for k in (0, 1))
        # (each hidden alone first: a value drawn for a judged form may read
        # as no secret, `credsk' ||87dffy6kY4T7==` to gitleaks' entropy, and
        # was then hidden only when the line before's match ran on into it)
        assume(_hidden_whole(a, va) and _hidden_whole(b, vb))
        return a + draw(st.sampled_from(["\n", "\n\n", "\r\n"])) + b, va, vb
    if how == "tokens":
        # Two tokens side by side, or glued: a form's value goes on into the other.
        # (two of one vendor's are not drawn: a run of its body's characters
        # takes the second's prefix in, and its body alone is no form; nor
        # two glued with nothing between: test_secret_glued_tokens' class)
        ta = draw(st.sampled_from(tokens))
        tb = draw(st.sampled_from([t for t in tokens if _RULE_ID(t) != _RULE_ID(ta)]))
        (_, va), (_, vb) = (_filled(t, seed + k) for k, t in enumerate((ta, tb)))
        glue = draw(st.sampled_from(["_", "-", ".", " ", "/", ":", "\t"]))
        assume(_hidden_whole(va + glue + _shaped(vb, rng), va))
        assume(_hidden_whole(_shaped(va, rng) + glue + vb, vb))
        return va + glue + vb, va, vb
    # A form (a name, a flag, a sentence…) whose value goes on into a token.
    text, va = _filled(draw(st.sampled_from(forms)), seed)
    _, vb = _filled(draw(st.sampled_from(tokens)), seed + 1)
    glue = draw(st.sampled_from(["_", "-", ".", "/", "+"]))
    start = text.index(va)
    at = start + len(va)
    assume(_hidden_whole(text[:at] + glue + _shaped(vb, rng) + text[at:], va))
    assume(_hidden_whole(text[:start] + _shaped(va, rng) + glue + vb + text[at:], vb))
    return text[:at] + glue + vb + text[at:], va, vb


@settings(max_examples=examples(200, 2000), deadline=None)
@given(two_forms())
def test_two_forms_overlapping_or_side_by_side_are_both_hidden(
        case: tuple[str, str, str]) -> None:
    from vibe_vault.redact import Redactor

    text, va, vb = case
    gate = Redactor()
    out, n = gate.redact(text)
    control, _ = gate.redact(text.replace(va, CONTROL).replace(vb, CONTROL))
    assert n >= 1, text
    assert not leaked(out, control, va) and not leaked(out, control, vb), (text, out)


def test_a_dropbox_token_holding_a_key_s_start_is_hidden_whole() -> None:
    """CI's draw: the private-key rule (run first) took `MII…`, and the rest
    of the token showed."""
    from vibe_vault.redact import Redactor

    rng = random.Random(7)
    body = "".join(rng.choice(_ALNUM) for _ in range(60)) + "_MII" + "".join(
        rng.choice(_ALNUM) for _ in range(80))
    for text in (f"sl.{body}", f"dbx = dropbox.Dropbox('sl.u.{body}{body}')"):
        out, n = Redactor().redact(text)
        assert n >= 1 and not leaked(out, CONTROL, body), out
