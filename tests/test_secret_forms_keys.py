"""Secret forms an attacker found passing the gate (attack 22), by class, part
two: a private key's body without its BEGIN line (#12).

Generated: each class's spellings x values drawn at random (a key's bytes,
base64 as PEM wraps it) x surroundings. Oracle: no run of 6 characters of the
value (which the test drew) is left in what the gate returns, nor in the note
and the state folded from a session that says it in several places. And
generated look-alikes (digests, base64 wrapped as mail wraps it, words) are
left whole.
"""

from __future__ import annotations

import base64
import random
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_more import CONTROL, PLACES, leaked
from vibe_vault.redact import DEFAULT

_ALNUM = string.ascii_letters + string.digits


def wrapped(data: bytes, width: int = 64) -> list[str]:
    """`data` in base64, cut into lines of `width` as PEM writes it."""
    text = base64.b64encode(data).decode()
    return [text[i:i + width] for i in range(0, len(text), width)]


def key_bytes(draw: st.DrawFn, der: bool) -> bytes:
    """A key's bytes: random (as a key's are), a DER sequence's header first
    when `der` (base64 `MII…`)."""
    rng = random.Random(draw(st.integers(0, 2**64)))
    n = draw(st.integers(150, 1200))
    head = bytes([0x30, 0x82, n >> 8, n & 0xFF]) if der else b""
    return head + rng.randbytes(n)


BEFORE = st.sampled_from(["", "$ sed -n 2,6p id_rsa\n", "here is the rest:\n", "key:\n",
                          "```\n", "> "])
AFTER = st.sampled_from(["", "\n", "\nthanks", "\n```", "\n\nnow it fails"])


@st.composite
def body_lines(draw: st.DrawFn) -> tuple[str, str]:
    """Some lines of a key's body, two or more of them whole (`sed -n a,bp`),
    with or without the last, shorter one; lines indented or not."""
    lines = wrapped(key_bytes(draw, draw(st.booleans())))
    full = len(lines) - 1  # (the last may be shorter)
    start = draw(st.integers(1, max(1, full - 2)))
    stop = draw(st.integers(min(start + 2, len(lines)), len(lines)))
    part = lines[start:stop]
    indent = draw(st.sampled_from(["", "    ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(indent + line for line in part)
    return draw(BEFORE) + text + draw(AFTER), "".join(part)


@st.composite
def der_line(draw: st.DrawFn) -> tuple[str, str]:
    """A DER key's first base64 line (`MII…`), alone, said in prose, or with
    the lines after it."""
    lines = wrapped(key_bytes(draw, True), draw(st.sampled_from([64, 64, 70, 76])))
    more = draw(st.integers(0, min(2, len(lines) - 1)))
    part = lines[:1 + more]
    how = draw(st.sampled_from(["line", "prose"]))
    if how == "prose" and not more:
        return f"the first line was {part[0]} and then it stopped", part[0]
    return draw(BEFORE) + "\n".join(part) + draw(AFTER), "".join(part)


@st.composite
def second_half(draw: st.DrawFn) -> tuple[str, str]:
    """A key pasted in two messages: this one its last lines and END line."""
    kind = draw(st.sampled_from(["RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", ""]))
    lines = wrapped(key_bytes(draw, draw(st.booleans())))
    start = draw(st.integers(1, len(lines) - 1))
    part = lines[start:]
    end = f"-----END {kind}PRIVATE KEY-----"
    if draw(st.booleans()):
        end = end.lower()
    return draw(BEFORE) + "\n".join(part) + "\n" + end + draw(AFTER), "".join(part)


CLASSES: dict[str, Any] = {"body-lines": body_lines(), "der-line": der_line(),
                           "second-half": second_half()}


def _check_gate(case: tuple[str, str]) -> None:
    text, v = case
    out, n = DEFAULT.redact(text)
    control = DEFAULT.redact(text.replace(v, CONTROL))[0] if v in text else ""
    assert n >= 1 and not leaked(out, control, v), (text, out)


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_a_key_body(case: tuple[str, str]) -> None:
    _check_gate(case)


@settings(max_examples=examples(25, 250), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_a_key_body_is_in_no_note_or_state(case: tuple[str, str],
                                                  where: list[str]) -> None:
    from test_secret_forms import _fold

    text, v = case
    note, state = _fold(text, where, v)
    # (the value's lines, each swapped for the control: the text around stays)
    control_text = text
    for line in sorted(set(text.split("\n")), key=len, reverse=True):
        if len(line.strip()) >= 8 and line.strip() in v:
            control_text = control_text.replace(line.strip(), CONTROL)
    control_note, control_state = _fold(control_text, where, CONTROL)
    assert not leaked(note, control_note, v), (text, where)
    assert not leaked(state, control_state, v), (text, where)


# -- what is left whole --------------------------------------------------------------------


@st.composite
def digests(draw: st.DrawFn) -> str:
    """Lines of hex digests (sha256sum's, a lock file's), any case, or a
    listing of them."""
    rng = random.Random(draw(st.integers(0, 2**64)))
    case = draw(st.sampled_from([str.lower, str.upper]))
    lines = [case(rng.randbytes(32).hex()) for _ in range(draw(st.integers(2, 6)))]
    label = draw(st.sampled_from(["", "  ", "sha256:", "- "]))
    return "\n".join(label + line for line in lines)


@st.composite
def mail_base64(draw: st.DrawFn) -> str:
    """Base64 as mail wraps it (76 columns), not as PEM does."""
    rng = random.Random(draw(st.integers(0, 2**64)))
    return "\n".join(wrapped(rng.randbytes(draw(st.integers(120, 600))), 76))


@st.composite
def word_lines(draw: st.DrawFn) -> str:
    """Lines of prose and identifiers, some of them 64 characters long."""
    words = draw(st.lists(st.text(string.ascii_letters, min_size=1, max_size=12),
                          min_size=4, max_size=40))
    text = " ".join(words)
    return "\n".join(text[i:i + 64] for i in range(0, len(text), 64))


@st.composite
def mii_words(draw: st.DrawFn) -> str:
    word = "MII" + draw(st.text(_ALNUM, max_size=40))
    return draw(st.sampled_from(["{w} licence", "see {w}", "{w}"])).replace("{w}", word)


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(digests(), mail_base64(), word_lines(), mii_words()))
def test_look_alikes_of_a_key_body_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), text
