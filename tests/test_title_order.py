"""A title keeps the order of the user's words when the request is one
sentence that fits (review 30 #15: 8897bd54's "I don't see the \"Powered by
Entire\" message anymore in this Claude session, is it enabled?" was titled
"Is it enabled: I don't see …").

Generated requests: one sentence, what the user sees (a statement, drawn
words) then, after a comma, a question that points back at it ("is it
enabled?"), within the title's flex (100 characters). The oracle is the
drawn sentence: the title is its words in their order, from its start.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript

word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=3, max_size=7)
STATEMENTS = ("I don't see the {} message anymore in this session",
              "The {} banner no longer shows up after the update",
              "I can't find the {} option in the settings")
ASKS = ("is it enabled?", "is it still there?", "was it removed?", "did it break?")


@settings(max_examples=examples(25, 120), deadline=None)
@given(statement=st.sampled_from(STATEMENTS), thing=st.lists(word, min_size=1, max_size=3),
       ask=st.sampled_from(ASKS))
def test_a_one_sentence_request_keeps_its_order(tmp_path_factory: Any, statement: str,
                                                thing: list[str], ask: str) -> None:
    request = statement.format('"' + " ".join(thing).title() + '"') + ", " + ask
    if len(request) > 100:
        return  # (beyond the flex a title is cut: another rule)
    t = Transcript()
    t.prompt(request)
    t.say("Let me check.")
    title = str(frontmatter(t.note(tmp_path_factory, "title order"))["title"])
    assert request.startswith(title.removesuffix("…").rstrip()), (title, request)
