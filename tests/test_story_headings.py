"""A heading in a quoted answer is not dropped to glue what it heads onto the
sentence before it (review 30 #10: bb5159a3's "**No.** There are two separate
things:" then "### What travels with `git push` automatically" then
"Nothing. …" was quoted "There are two separate things: Nothing.").

Generated answers: a sentence ending in a colon, a heading (any level, bold
or not), a sentence under it, more after. The oracle is the drawn parts: the
story's quote of the answer never has the sentence under the heading right
after the colon; where it has that sentence, the heading's words precede it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript

word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=3, max_size=8)
head_word = st.text(alphabet="aeiouy", min_size=3, max_size=8)  # (never one of `word`)


@settings(max_examples=examples(25, 120), deadline=None)
@given(lead=st.lists(word, min_size=1, max_size=5), heading=st.lists(head_word, min_size=1,
                                                                     max_size=5),
       level=st.integers(1, 4), bold=st.booleans(), under=st.lists(word, min_size=1,
                                                                    max_size=6),
       opener=st.sampled_from(("**No.** ", "Yes. ", "")))
def test_a_heading_is_kept_or_cut_before(tmp_path_factory: Any, lead: list[str],
                                         heading: list[str], level: int, bold: bool,
                                         under: list[str], opener: str) -> None:
    said_lead = f"{opener}There are two separate {' '.join(lead)} things:"
    head = " ".join(heading)
    said_under = " ".join(under).capitalize() + "."
    answer = (f"{said_lead}\n\n{'#' * level} {f'**{head}**' if bold else head}\n"
              f"{said_under} More words follow here.\n\n### Second part\nOther words.")
    t = Transcript()
    t.prompt("do git notes travel with a push?")
    t.say(answer)
    t.prompt("and the other way?")  # (the last answer is shown whole; this one by its gist)
    t.say("The same.")
    note = t.note(tmp_path_factory, "story headings")
    (quote,) = [ln for ln in note.splitlines() if ln.startswith("> **Claude:**")
                and "separate" in ln]
    glued = said_lead.rstrip() + " " + said_under
    assert glued.replace("**", "") not in quote.replace("**", ""), quote
    if said_under in quote:
        assert head in quote and quote.index(head) < quote.index(said_under), quote
