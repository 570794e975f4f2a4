"""Review 26 (26a8a0cc): a session titled "User learned about Python decorators,
including basic decorators and…": its own summary, told of the user in the
third person and cut, where the user's request ("Can you help me understand how
Python decorators work?") names it. Claude Code's summaries that name the work
("CSS Details Margin Styling") still title their sessions.

Generated sessions: a request, an answer, and the session's own summary
(`leafUuid` its last entry), in the third person or naming the work; the oracle
is the generated words.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from test_titles import is_cut_of
from vibe_vault.figures import title_of

word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=2, max_size=8)
words = st.lists(word, min_size=2, max_size=6).map(" ".join)


@settings(max_examples=examples(40, 200), deadline=None)
@given(thing=words, asked=words, person=st.sampled_from(["", "User ", "The user ", "user "]),
       verb=st.sampled_from(["learned about", "asked for", "fixed", "wanted"]))
def test_a_summary_of_the_user_in_the_third_person_gives_way_to_the_request(
        thing: str, asked: str, person: str, verb: str) -> None:
    request = f"Please explain {asked} to me"
    summary = f"{person}{verb} {thing}" if person else f"{thing.capitalize()} Styling"
    t = Transcript()
    t.prompt(request)
    t.say("Here is how it works.")
    t.raw({"type": "summary", "summary": summary, "leafUuid": t.lines[-1]["uuid"]})
    title = title_of(t.state())
    if person:
        assert is_cut_of(title, request), (title, request)
    else:
        assert title == summary, (title, summary)
