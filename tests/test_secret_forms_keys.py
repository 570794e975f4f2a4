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
    # (not read as a key's body; another rule may still read a line as its own
    # token: a digest drawn to begin 'EAA' is a Facebook token's shape)
    out, _ = DEFAULT.redact(text)
    assert "[REDACTED:private-key]" not in out, text


# -- a token escaped, cut in two, encoded (#23, #24, #25) --------------------------------

# (prefix, alphabet of the rest, its length): tokens of shapes the gate knows
TOKENS = (("ghp_", _ALNUM, 36), ("gho_", _ALNUM, 36), ("ghs_", _ALNUM, 36),
          ("npm_", _ALNUM, 36), ("hf_", _ALNUM, 34), ("glpat-", _ALNUM, 20),
          ("sk-ant-api03-", _ALNUM, 93), ("sk-proj-", _ALNUM, 48), ("xoxb-1234567890-", _ALNUM, 24),
          ("AKIA", string.ascii_uppercase + "234567", 16), ("dop_v1_", "0123456789abcdef", 64))


def random_run(draw: st.DrawFn, alphabet: str, n: int) -> str:
    """n characters of `alphabet` at random, a letter and a digit in it
    where the alphabet has both (as a token has)."""
    rng = random.Random(draw(st.integers(0, 2**64)))
    while True:
        out = "".join(rng.choice(alphabet) for _ in range(n))
        if not (set(alphabet) & set(string.digits)) or (
                any(c.isdigit() for c in out) and any(c.isalpha() for c in out)):
            return out


@st.composite
def escaped_token(draw: st.DrawFn) -> tuple[str, str]:
    """A token whose `_` or `-` is written as Markdown escapes it (`ghp\\_…`)
    or as an HTML character reference (`ghp&#95;…`, `&lowbar;`, `&#x5F;`)."""
    prefix, alphabet, n = draw(st.sampled_from([t for t in TOKENS if t[0][-1] in "_-"]))
    body = random_run(draw, alphabet, n)
    forms = {"_": ["\\_", "&#95;", "&#x5F;", "&#x5f;", "&lowbar;", "&UnderBar;"],
             "-": ["\\-", "&#45;", "&#x2D;", "&hyphen;", "&dash;"]}
    sep = prefix[-1]
    written = prefix[:-1].replace(sep, draw(st.sampled_from(forms[sep]))) \
        + draw(st.sampled_from(forms[sep]))
    spelling = draw(st.sampled_from(["Use {t} here", "{t}", "token: `{t}`", "<p>{t}</p>",
                                     "export TOKEN={t}\n"]))
    return spelling.replace("{t}", written + body), body


@st.composite
def split_token(draw: st.DrawFn) -> tuple[str, str]:
    """A GitHub token cut in two: joined by a shell's quotes, or its rest on
    the next line (as a terminal wraps it)."""
    prefix = draw(st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]))
    body = random_run(draw, _ALNUM, 36)
    cut = draw(st.integers(8, 28))
    a, b = body[:cut], body[cut:]
    how = draw(st.sampled_from(["quotes", "newline"]))
    if how == "quotes":
        q1, q2 = draw(st.sampled_from(['""', "''", "\"'", "'\""]))
        text = draw(st.sampled_from(['TOKEN={o}{t}{c}', 'curl -H "Authorization: token {o}{t}{c}"',
                                     'export GH_TOKEN={o}{t}{c}'])).replace(
            "{t}", prefix + a + q1 + q2 + b).replace("{o}", q2).replace("{c}", q1)
    else:
        newline = draw(st.sampled_from(["\n", "\r\n", "\n  "]))
        text = draw(st.sampled_from(["{t}", "token:\n{t}\nthanks", "GH_TOKEN={t}\n"])).replace(
            "{t}", prefix + a + newline + b)
    # (the value: each piece; a run of 6 across the cut is in neither)
    return text, a + "\u2063" + b


@st.composite
def encoded_token(draw: st.DrawFn) -> tuple[str, str]:
    """A token base64-encoded, as `echo … | base64 -d` decodes it."""
    prefix, alphabet, n = draw(st.sampled_from(TOKENS))
    token = prefix + random_run(draw, alphabet, n)
    encoded = base64.b64encode(
        (token + draw(st.sampled_from(["", "\n"]))).encode()).decode()
    spelling = draw(st.sampled_from(["echo {e} | base64 -d", "TOKEN=$(echo '{e}' | base64 --decode)",
                                     "the value is {e}", "{e}"]))
    return spelling.replace("{e}", encoded), encoded


def _check_pieces(case: tuple[str, str]) -> None:
    text, v = case
    out, n = DEFAULT.redact(text)
    pieces = v.split("\u2063")
    control_text = text
    for piece in pieces:
        control_text = control_text.replace(piece, CONTROL)
    control = DEFAULT.redact(control_text)[0]
    assert n >= 1 and not [p for p in pieces if leaked(out, control, p)], (text, out)


TOKEN_CLASSES = {"escaped": escaped_token(), "split": split_token(), "encoded": encoded_token()}


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*TOKEN_CLASSES.values()))
def test_the_gate_leaves_no_run_of_six_of_an_escaped_split_or_encoded_token(
        case: tuple[str, str]) -> None:
    _check_pieces(case)


@st.composite
def ordinary_escapes(draw: st.DrawFn) -> str:
    """Markdown and HTML escapes, quotes side by side and base64 in ordinary
    text: none is a secret."""
    word = draw(st.text(string.ascii_lowercase, min_size=3, max_size=12))
    return draw(st.sampled_from([
        "snake\\_case and {w}\\_name", "a &#95; b &amp; c &#45; {w}", "x = \"\"\"{w}\"\"\"",
        "echo ''{w}''", "print(\"\" + '{w}')", "&lowbar;{w}&lowbar;", "ghp\\_ is the prefix",
        "ghp_{w} is a name", "{w}\n{w}ghp_", "echo " + base64.b64encode(
            ("ghp_" + word).encode()).decode() + " | base64 -d",
        base64.b64encode(("sk-learn " + word).encode()).decode(),
    ])).replace("{w}", word)


@settings(max_examples=examples(100, 1000), deadline=None)
@given(ordinary_escapes())
def test_ordinary_escapes_quotes_and_base64_are_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), text


# -- a password named in another language or script (#15, #21) ------------------------------


PASSWORD_NAMES = ("पासवर्ड: {v}", "kata sandi: {v}", "Kata sandi: {v}", "kata sandi adalah {v}",
                  "пароль до бази: {v}", "Пароль від сервера: {v}", "mật khẩu: {v}",
                  "Mật khẩu là {v}", "API_키={v}", "DB_пароль: {v}", "GITHUB_토큰={v}",
                  "app.密钥 = '{v}'", "SECRET_キー=\"{v}\"", "login_पासवर्ड: {v}")


@st.composite
def named_in_another_language(draw: st.DrawFn) -> tuple[str, str]:
    """A password or key after its name in Hindi, Indonesian, Ukrainian,
    Vietnamese or Korean, or a name mixing scripts; its value letters and
    digits, letters of both cases, lower case and digits, or with symbols."""
    alphabet = draw(st.sampled_from([_ALNUM, string.ascii_letters,
                                     string.ascii_lowercase + string.digits,
                                     _ALNUM + "!@#%^*+=?"]))
    n = draw(st.integers(10, 24))
    v = random_run(draw, alphabet, n)
    if alphabet == string.ascii_letters:  # (a capital inside: no word of a sentence)
        v = v[0] + "Q" + v[2:-1] + "Z"
    spelling = draw(st.sampled_from(PASSWORD_NAMES))
    after = draw(st.sampled_from(["", "\n", ". Thanks", "\nthen restart the app"]))
    return spelling.replace("{v}", v) + after, v


@settings(max_examples=examples(150, 1500), deadline=None)
@given(named_in_another_language())
def test_the_gate_leaves_no_run_of_six_of_a_password_named_in_another_language(
        case: tuple[str, str]) -> None:
    _check_pieces(case)


@settings(max_examples=examples(25, 250), deadline=None)
@given(st.one_of(named_in_another_language(), *TOKEN_CLASSES.values()), PLACES)
def test_folded_an_escaped_split_encoded_or_foreign_named_value_is_in_no_note_or_state(
        case: tuple[str, str], where: list[str]) -> None:
    from test_secret_forms import _fold

    text, v = case
    pieces = v.split("\u2063")
    note, state = _fold(text, where, pieces[0])
    control_text = text
    for piece in pieces:
        control_text = control_text.replace(piece, CONTROL)
    control_note, control_state = _fold(control_text, where, CONTROL)
    for piece in pieces:
        assert not leaked(note, control_note, piece), (text, where)
        assert not leaked(state, control_state, piece), (text, where)


@st.composite
def said_of_a_password(draw: st.DrawFn) -> str:
    """What a password is, said in those languages: no password in it."""
    return draw(st.sampled_from([
        "kata sandi: wajib", "Kata sandi salah.", "kata sandi adalah wajib", "mật khẩu: bắt buộc",
        "Mật khẩu sai.", "पासवर्ड: आवश्यक", "पासवर्ड गलत है", "пароль до бази: обов'язковий",
        "Пароль від сервера: невірний", "키: 180cm", "API 키 설명: 문서를 보세요",
        "API_키=${API_KEY}", "DB_пароль: <пароль>", "the 密钥 is in the vault",
    ]))


@given(said_of_a_password())
def test_what_a_password_is_said_in_those_languages_is_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0), text
