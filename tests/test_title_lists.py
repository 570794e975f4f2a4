"""Review 31 F12 (b): a request that introduces a list is titled by the line
before the list, not by one of its items.

1656b075's only request was "Please perform the following file edit
operations using the Edit tool:\\n\\n1. Edit …, change \\"hello\\" to
\\"goodbye\\"\\n2. Edit …, change only the FIRST occurrence …"; its title was
item 2 ("Change only the FIRST occurrence of \\"foo\\" to \\"bar\\""): the
intro's verb ("perform") is not one the request rules know, item 1 opens with
a long path, and item 2 was the first sentence that asked for something.

Generated: an intro line (with or without "Please", its verb known to the
rules or not, words of its own) ending in a colon, then a numbered or bulleted
list of requests whose verbs the rules know. The oracle is the generated
intro: the title is a run of its words, and holds none of an item's words
that the intro does not.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from test_request_titles import flat, is_words_of, plain
from vibe_vault.figures import title_of

VERBS = ("perform", "carry out", "make", "apply", "do", "handle", "complete")
ITEM_VERBS = ("change", "fix", "add", "remove", "rename", "update", "edit")
MARKS = ("{n}. ", "{n}) ", "- ", "* ")

item = st.tuples(st.sampled_from(ITEM_VERBS), st.lists(plain, min_size=1, max_size=5),
                 st.booleans())


@settings(max_examples=examples(40, 200), deadline=None)
@given(please=st.booleans(), verb=st.sampled_from(VERBS),
       what=st.lists(plain, min_size=1, max_size=5), mark=st.sampled_from(MARKS),
       items=st.lists(item, min_size=2, max_size=4), blank=st.booleans())
def test_a_list_is_titled_by_the_line_before_it(
        please: bool, verb: str, what: list[str], mark: str,
        items: list[tuple[str, list[str], bool]], blank: bool) -> None:
    intro = f"{'Please ' if please else ''}{verb} the following {' '.join(what)}:"
    lines = [mark.format(n=n + 1) + (
        f"Edit /private/var/folders/jv/T/pytest-of-me/pytest-1/test_{n}/{obj[0]}.txt, "
        f"{v} {' '.join(obj)}" if path else f"{v.capitalize()} {' '.join(obj)}")
        for n, (v, obj, path) in enumerate(items)]
    prompt = intro + ("\n\n" if blank else "\n") + "\n".join(lines)
    t = Transcript()
    t.prompt(prompt)
    t.say("Done.")
    title = title_of(t.state())
    assert is_words_of(title.rstrip(":"), intro), (title, prompt)
    own = set(flat(intro).split())
    after = {w for ln in lines for w in flat(ln).split()} - own
    assert not set(flat(title).split()) & after, (title, prompt)
