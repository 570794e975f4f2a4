"""Issue 29 review, F21: the summary's "Claude:" words are cut after a whole
list item or sentence, with " …" saying more followed, never mid-item.

Generated last answers list generated items (or run generated sentences);
the oracle is those items: what the summary quotes is the first k of them,
whole, joined as the answer listed them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import SUMMARY_WORDS, RenderOptions, figures

# Words without vowels: none is an English word, so no item claims an action (files
# "written", "committed", "pushed") that this session's facts would contradict and
# the summary rightly leaves out (test_answers and test_facts check those): what is checked
# here is where the words are cut, whatever they are.
unclaiming = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=2, max_size=9)
item = st.lists(unclaiming, min_size=3, max_size=14).map(" ".join)


def claude_words(summary: str) -> str:
    return summary.split(" Claude: ", 1)[1]


@settings(max_examples=examples(40, 150), deadline=None)
@given(items=st.lists(item, min_size=2, max_size=12), listed=st.booleans())
def test_claudes_words_are_cut_after_a_whole_item_or_sentence(items: list[str],
                                                              listed: bool) -> None:
    t = Transcript()
    t.prompt("tidy the module")
    parts = [f"{i.capitalize()} done" for i in items]
    # A list is quoted as its items joined by "; "; prose by one sentence.
    t.say("Summary:\n" + "\n".join(f"- {p}" for p in parts) if listed
          else " ".join(f"{p}." for p in parts))
    said = claude_words(figures(t.state(), RenderOptions()).summary)
    if not listed:
        assert said in [f"{p}." for p in parts], said  # a sentence, whole
        return
    joined = "; ".join(parts)
    if len(joined) <= SUMMARY_WORDS:
        assert said == joined + ".", (said, joined)
        return
    assert said.endswith(" …"), said
    kept = said.removesuffix(" …")
    assert len(kept) <= SUMMARY_WORDS
    if len(parts[0]) < SUMMARY_WORDS - 2:
        # Whole items, as many as fit (or all but the ones past the limit).
        k = next((k for k in range(1, len(parts)) if "; ".join(parts[:k]) == kept), 0)
        assert k >= 1, (kept, parts)
        assert len("; ".join(parts[:k + 1])) > SUMMARY_WORDS - 3  # the next did not fit


@settings(max_examples=examples(30, 100), deadline=None)
@given(said=item, later=item, calls=st.integers(1, 3))
def test_a_last_request_with_no_answer_still_says_what_claude_said_before(
        said: str, later: str, calls: int) -> None:
    """79e9becd: the last request got no answer (the transcript ends on a
    tool call); the summary says so, then Claude's words from the last turn
    it answered, labelled as from before it, never as the answer."""
    t = Transcript()
    t.prompt("run the tests")
    t.say(f"{said.capitalize()} now.")
    t.prompt(f"now {later}")
    for _ in range(calls):
        t.bash("ls", "a.py\n")
    state = t.state()
    state.status = "ended"  # (while it runs: "Claude is still at work on the last request.")
    summary = figures(state, RenderOptions()).summary
    assert summary.endswith(
        f"The last request got no answer. Claude, before it: {said.capitalize()} now."), summary
    assert " Claude: " not in summary


@settings(max_examples=examples(40, 150), deadline=None)
@given(lead=item, items=st.lists(item, min_size=1, max_size=5), numbered=st.booleans(),
       blank=st.booleans(), opener=st.sampled_from(["", "You're welcome! ", "Done. "]))
def test_a_sentence_announcing_a_list_is_not_quoted_for_it(
        lead: str, items: list[str], numbered: bool, blank: bool, opener: str) -> None:
    """Review 19 #4 (a7da6a22: "Claude: Here's a summary of what we
    accomplished."): a sentence ending in ":" announces the list below it;
    the summary quotes the list's items, never the announcement alone."""
    t = Transcript()
    t.prompt("tidy the module")
    parts = [f"{i.capitalize()} done" for i in items]
    marks = [f"{k + 1}." if numbered else "-" for k in range(len(parts))]
    gap = "\n\n" if blank else "\n"
    announced = f"Here is what came of {lead}"
    t.say(f"{opener}{announced}:{gap}" + gap.join(f"{m} {p}" for m, p in
                                                        zip(marks, parts, strict=True)))
    said = claude_words(figures(t.state(), RenderOptions()).summary)
    assert "Here is what came of" not in said, said
    assert said.startswith(parts[0][:SUMMARY_WORDS - 2]), (said, parts)
