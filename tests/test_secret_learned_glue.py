"""A learned secret is kept out whatever is glued to it when it comes back:
the marks prose puts around a word in any script (`was it X?`, `**X**`,
`«X»`, `X。`, `X’s`, `「X」`, `#X`, `$X`) and the letters of scripts written
without spaces (`密码是X`, `X는`, `รหัสXครับ`). Attack 25 found 56 of 70 such
forms whole in the note, the state and the database.

Generated: random values (letters and digits, maybe a mark inside, as a
password has), taught by `export DB_PASSWORD=X`, then said in a prompt and in
Claude's answer with a drawn run of glue before and after. Oracle: no run of
six of the value in the note or the state.
"""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from test_secret_forms_more import runs_of_six
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState, encode_state

_ALNUM = string.ascii_letters + string.digits
GLUE = ["?", "!", "…", "。", "，", "、", "？", "！", "؟", "।", "”", "“", "»", "«", "’s", "‘",
        "’", "„", "**", "*", "_", "#", "$", "%", "~", "^", "&", "+", "（", "）", "【", "】",
        "「", "」", "『", "』", "《", "》", "·", "¿", "¡", "—", "–", "密码是", "是", "は",
        "です", "는", "입니다", "이에요", "ครับ", "รหัส", "=", ":", ".", "-", "/", "@", "|"]


@st.composite
def values(draw: st.DrawFn) -> str:
    # (letters and digits both, as a random value's: `0000000000A0` is a number)
    body = draw(st.text(_ALNUM, min_size=10, max_size=24).filter(
        lambda b: sum(c.isalpha() for c in b) >= 3 and sum(c.isdigit() for c in b) >= 2))
    mark = draw(st.sampled_from(["", "", "-", "_", ".", "!", "@"]))
    at = draw(st.integers(2, len(body) - 2))
    return body[:at] + mark + body[at:] + draw(st.sampled_from("ABCDEFGH")) + draw(
        st.sampled_from("0123456789"))


def _note_and_state(value: str, said: str, where: str) -> tuple[str, str]:
    t = Transcript()
    t.prompt("set the database password")
    t.bash(f"export DB_PASSWORD={value}", "", "Set the password")
    if where == "prompt":
        t.prompt(said)
        t.say("Yes.")
    else:
        t.prompt("which one was it?")
        t.say(said)
    state = SessionState(session_id="s", project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    return render(state), encode_state(state).decode("utf-8", "replace")


CONTROL = "Kq8#Zm3!Wx7@Vb"  # (what the session holds anyway is no leak)


# (before the value, none ending in a Latin letter: `’s` before it glues an
# `s` on, and a Latin letter is no glue, as the README says)
BEFORE = [g for g in GLUE if not g[-1].isascii() or not g[-1].isalpha()]


@settings(max_examples=examples(60, 400), deadline=None)
@given(value=values(), before=st.lists(st.sampled_from(BEFORE), max_size=3),
       after=st.lists(st.sampled_from(GLUE), max_size=3),
       where=st.sampled_from(["prompt", "answer"]))
def test_a_learned_value_is_kept_out_whatever_is_glued_to_it(
        value: str, before: list[str], after: list[str], where: str) -> None:
    glued = "was it {}{}{} then"
    note, kept = _note_and_state(value, glued.format("".join(before), value, "".join(after)),
                                 where)
    base_note, base_kept = _note_and_state(
        CONTROL, glued.format("".join(before), CONTROL, "".join(after)), where)
    found = [run for run in runs_of_six(value)
             if (run in note or run in kept) and run not in base_note + base_kept]
    assert not found, (found, value, before, after)
