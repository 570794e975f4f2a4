"""A value printed a blank line below its label, indented (attack 26, c1078:
`Your new API key:⏎⏎    V`, as CLIs print a key they made): the gate read a
value on the label's line or the next, not after a blank one.

Generated: labels (a key's, a token's, a secret's names, with words before)
x `:` or `=` x 0-2 blank lines x an indent of 0-8 x values drawn at random.
Oracle: no run of 6 of the drawn value in the gate's output; look-alikes (a
label, blank lines, then prose, code or a YAML key) are left whole.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_secret_forms_small_leaks import _hidden, shannon_bits, token
from vibe_vault.redact import DEFAULT

LABELS = ["API key", "Your new API key", "api_key", "Access key", "Secret key", "Token",
          "Your token", "auth_token", "Private key", "Client secret"]


@st.composite
def below_label(draw: st.DrawFn) -> tuple[str, list[str]]:
    v = draw(token(16, 40).filter(lambda v: shannon_bits(v) >= 3.5))
    label = draw(st.sampled_from(LABELS))
    sep = draw(st.sampled_from([":", " :", "="]))
    blank = "\n" * draw(st.integers(1, 3))
    indent = " " * draw(st.integers(0, 8))
    after = draw(st.sampled_from(["", "\n", "\n\nStore it somewhere safe."]))
    return label + sep + blank + indent + v + after, [v]


@settings(max_examples=examples(60, 400), deadline=None)
@given(below_label())
def test_a_value_below_its_label_is_hidden(case: tuple[str, list[str]]) -> None:
    _hidden(*case)


@settings(max_examples=examples(40, 200), deadline=None)
@given(st.sampled_from(LABELS), st.integers(1, 3), st.integers(0, 8),
       st.sampled_from(["see the docs for details", "export API_KEY=$API_KEY",
                        "base_url: https://api.example.com", "1. Open the settings page",
                        "(not set)", "required"]))
def test_prose_or_code_below_a_label_is_left(label: str, blank: int, indent: int,
                                             below: str) -> None:
    text = label + ":" + "\n" * blank + " " * indent + below
    assert DEFAULT.redact(text) == (text, 0), DEFAULT.redact(text)
