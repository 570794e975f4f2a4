"""Review 26 #4 (9e953218): a prompt with a pasted HAR (~200 quoted lines) and a
server's log buried the question asked around them. The story shows the
user's own words whole and a paste's first lines, then how many more there
were ("… 190 more lines of pasted JSON").

Generated prompts: sentences of the user's, a paste of generated JSON lines
or log lines (any number), more sentences; the oracle is what was generated.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.render import render

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
sentence = st.lists(word, min_size=5, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
json_line = st.tuples(key, st.integers(0, 99_999)).map(lambda kv: f'  "{kv[0]}": {kv[1]},')
log_line = st.tuples(st.integers(0, 59), st.integers(0, 999), st.integers(100, 599)).map(
    lambda t: f"01:12:{t[0]:02d}.{t[1]:03d} GET /x {t[2]}")

SHOWN = 4  # a paste's first lines, shown
LEAST = 12  # lines that make a paste


@settings(max_examples=examples(40, 200), deadline=None)
@given(before=st.lists(sentence, min_size=1, max_size=3), after=st.lists(sentence, max_size=2),
       kind=st.sampled_from(["json", "log"]), size=st.integers(0, 60), data=st.data())
def test_a_paste_is_cut_to_its_first_lines_and_the_users_words_stay_whole(
        before: list[str], after: list[str], kind: str, size: int,
        data: st.DataObject) -> None:
    lines = data.draw(st.lists(json_line if kind == "json" else log_line,
                               min_size=size, max_size=size))
    paste = (["{", *lines] if kind == "json" else lines)
    prompt = "\n".join([" ".join(before), "", *paste, *([""] if after else []), " ".join(after)])
    t = Transcript()
    t.prompt(prompt)
    t.say("Looking at it.")
    note = render(t.state())
    quoted = [ln.removeprefix("> ") for ln in note.splitlines() if ln.startswith(">")]
    for said in [*before, *after]:
        assert said in " ".join(quoted), (said, quoted)  # the user's words, whole
    if len(paste) >= LEAST:
        what = "JSON" if kind == "json" else "text"
        told = f"… {len(paste) - SHOWN:,} more lines of pasted {what}"
        assert told in quoted, (told, quoted)
        assert all(ln.strip() in quoted or ln in quoted for ln in paste[:SHOWN]), quoted
        assert not any(ln in quoted for ln in paste[SHOWN:] if ln not in paste[:SHOWN]), quoted
    else:
        assert not any("more lines of pasted" in ln for ln in quoted), quoted
        assert all(ln in quoted for ln in paste), (paste, quoted)
