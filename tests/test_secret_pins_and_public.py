"""A PIN of digits after its name, and what the gate leaves though it looks
like a secret (attack 26's leftovers).

A PIN is digits (`pin: 482913`, `PIN code 4829`, `sim_pin=0000`), where a
number after another name is none: hidden; `pin = 13` (a board's pin), a
line number, a port, a year after a bare `pin ` are left. Left whole: a
Japanese, Chinese or Korean form's "password: required (8 or more)"; an
image's data URI (its base64 may spell a token's head, `…AAAAEAAAAB…`);
AWS's documented example keys. Beside each, a real secret in the same place is still hidden.

Generated: names x separators x values drawn at random x surroundings.
Oracle: the drawn value (digits: as a whole number; else any run of 6 of it)
is not in the gate's output, and is handed to learning whole; what is left
is the input unchanged.
"""

from __future__ import annotations

import base64
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_more import drawn
from test_secret_forms_small_leaks import _hidden, token
from vibe_vault.redact import DEFAULT

# -- a PIN of digits -----------------------------------------------------------------

PIN_NAMES = ("pin", "PIN", "Pin", "pin code", "PIN code", "pin_code", "PIN_CODE", "pinCode",
             "sim pin", "SIM PIN", "card PIN", "PIN number", "puk", "PUK code", "unlock_pin")


@st.composite
def pin_case(draw: st.DrawFn) -> tuple[str, str]:
    v = draw(st.text(string.digits, min_size=4, max_size=8))
    sep = draw(st.sampled_from([": ", ":", "=", " = ", " is ", ": \"", " "]))
    if sep == " ":  # (after a bare space, not a year: `pin 2024 release`)
        v = v if not re.fullmatch(r"(?:19|20)\d\d", v) else v + "7"
    close = '"' if sep.endswith('"') else ""
    before = draw(st.sampled_from(["", "my ", "the new ", "Your "]))
    after = draw(st.sampled_from(["", ".", "\n", " (do not share)", ", thanks"]))
    return before + draw(st.sampled_from(PIN_NAMES)) + sep + v + close + after, v


@settings(max_examples=examples(60, 400), deadline=None)
@given(pin_case())
def test_a_pin_of_digits_after_its_name_is_hidden(case: tuple[str, str]) -> None:
    text, v = case
    found: list[str] = []
    out, n = DEFAULT.redact(text, found)
    assert n >= 1, (text, out)
    assert not re.search(rf"(?<!\d){v}(?!\d)", out), (text, out)
    assert v in found, (text, found)


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.one_of(
    st.builds(lambda n: f"int pin = {n};", st.integers(0, 999)),
    st.builds(lambda n: f"GPIO pin {n} is high", st.integers(0, 999)),
    st.builds(lambda n: f"see pin.py:{n}", st.integers(1, 99_999)),
    st.builds(lambda n: f"pin {n} release notes", st.integers(1990, 2039)),
    st.builds(lambda n: f"pinned to line {n}", st.integers(1000, 99_999)),
    st.builds(lambda n: f"spin {n} times, port {n}", st.integers(1000, 65_535)),
    st.builds(lambda a, b: f"pin version {a}.{b}", st.integers(1, 99), st.integers(0, 999)),
))
def test_a_number_that_is_no_pin_is_left(text: str) -> None:
    assert DEFAULT.redact(text) == (text, 0)


# -- a form's words after a password's name, in a script without spaces ------------

LABELS = ("パスワード", "暗証番号", "密码", "密碼", "비밀번호")
SAID = ("必須項目です（{n}文字以上）", "必須（{n}文字以上）", "任意（{n}桁）", "非表示({n})",
        "必填（至少{n}位）", "可选（{n}个字符）", "필수 항목({n}자 이상)", "필수항목({n}자 이상)",
        "선택({n}자)")


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(["：", ": ", ":"]), st.sampled_from(SAID),
       st.integers(4, 64))
def test_a_forms_words_after_a_password_label_are_left(label: str, sep: str, said: str,
                                                       n: int) -> None:
    text = label + sep + said.format(n=n)
    assert DEFAULT.redact(text) == (text, 0)


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(["：", ": ", ":"]), token(10, 24),
       st.sampled_from(["", "。", "\n"]))
def test_a_password_after_the_same_label_is_hidden(label: str, sep: str, v: str,
                                                   end: str) -> None:
    _hidden(label + sep + v + end, [v])


# -- an image's data URI ------------------------------------------------------------


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.binary(min_size=24, max_size=600), st.sampled_from(["png", "gif", "jpeg", "webp"]),
       st.sampled_from(['<img src="data:image/{t};base64,{b}">',
                        "background: url(data:image/{t};base64,{b}) no-repeat",
                        "![dot](data:image/{t};base64,{b})"]),
       st.integers(0, 6))
def test_an_images_data_uri_is_left_whole(data: bytes, kind: str, form: str, at: int) -> None:
    """Its bytes drawn, a token's head planted in them (Square's `EAAA`, a
    JWT's `eyJ`, GitHub's `ghp_` cannot be base64's: `_`), shown whole."""
    body = base64.b64encode(data[:at] + b"\x10\x00\x00" + data[at:]).decode()
    text = form.format(t=kind, b=body)
    assert DEFAULT.redact(text) == (text, 0)


@settings(max_examples=examples(30, 150), deadline=None)
@given(token(60, 60, string.ascii_letters + string.digits))
def test_a_token_beside_a_data_uri_is_hidden(v: str) -> None:
    """The same token outside the URI, and in a text's data URI (not an image's)."""
    uri = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    _hidden(f'<img src="{uri}"> SQUARE_ACCESS_TOKEN=EAAA{v}', [v])
    _hidden(f"data:text/plain;base64,AAAAEAAA{v}", [v])


# -- documented examples ------------------------------------------------------


_AWS_ID, _AWS_KEY = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@settings(max_examples=examples(30, 150), deadline=None)
@given(drawn(string.ascii_uppercase + string.digits, 16, 16),
       token(40, 40, string.ascii_letters + string.digits + "/+"),
       st.sampled_from(["aws_access_key_id = {i}\naws_secret_access_key = {k}\n",
                        "export AWS_ACCESS_KEY_ID={i}\nexport AWS_SECRET_ACCESS_KEY={k}",
                        "The docs use {i} and {k} as examples."]))
def test_awss_documented_example_keys_are_left_real_ones_hidden(i: str, k: str,
                                                                form: str) -> None:
    text = form.format(i=_AWS_ID, k=_AWS_KEY)
    assert DEFAULT.redact(text) == (text, 0)
    real = "AKIA" + i
    out, n = DEFAULT.redact(form.format(i=real, k=k))
    assert real not in out and n >= 1, out
    assert not any(k[j:j + 6] in out for j in range(len(k) - 5)), out
