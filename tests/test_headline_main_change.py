"""Review 24: the words a summary quotes as Claude's are the session's main
change, whole where they were cut at a colon.

Generated transcripts: answers whose list items or sentences end in ":" with
the items that say what was done under them (cde341db's "Fixed the exit
delay by setting:" over its settings), and sessions whose turns change
generated numbers of lines, the last one fewer than an earlier one
(488c5296: the timeout 20m → 45m, then `retry: 1`). The oracle is what was
generated: the words under the colon, the turn that changed the most.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import RenderOptions, figures

# Words without vowels: none is an English word, so none claims an action the
# session's facts would contradict, nor reads as a change, status or aside.
word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=2, max_size=9)
words = st.lists(word, min_size=2, max_size=8).map(" ".join)
VERBS = ["Fixed", "Added", "Updated", "Changed", "Increased"]


def claude_words(summary: str) -> list[str]:
    """Each run of words the summary labels as Claude's."""
    parts = re.split(r" ?Claude(?:, earlier|, last|, before it)?: ", summary)
    return [p.split(" It ended with Claude asking: ", 1)[0] for p in parts[1:]]


@settings(max_examples=examples(60, 300), deadline=None)
@given(verb=st.sampled_from(VERBS), lead=words, under=st.lists(words, min_size=1, max_size=5),
       before=st.lists(words, min_size=0, max_size=2), after=st.lists(words, max_size=2),
       numbered=st.booleans(), prose=st.booleans())
def test_words_ending_in_a_colon_are_quoted_with_what_follows_or_marked_cut(
        verb: str, lead: str, under: list[str], before: list[str], after: list[str],
        numbered: bool, prose: bool) -> None:
    """An item (or the sentence over a list) that ends in ":" says what was
    done in the items under it: quoted, it goes on with them ("by setting:
    `ShutdownTimeout`…"), or its cut is marked "…"; its words are never
    closed with a full stop where Claude wrote a colon (review 24 N1)."""
    t = Transcript()
    t.prompt("fix the slow exit")
    t.write_file("/work/app/main.go", "a\nb\n")
    said = f"{verb} {lead} by setting"
    marks = [f"{k + 1}." if numbered else "-" for k in range(len(before) + 1 + len(after))]
    nested = "\n".join(f"   - {u}" for u in under)
    if prose:
        text = f"{said}:\n\n" + "\n".join(f"- {u}" for u in under)
    else:
        items = [*(f"{m} {b}" for m, b in zip(marks, before, strict=False)),
                 f"{marks[len(before)]} {said}:\n{nested}",
                 *(f"{m} {a}" for m, a in zip(marks[len(before) + 1:], after, strict=False))]
        text = "Summary of changes:\n\n" + "\n".join(items)
    t.say(text)
    summary = figures(t.state(), RenderOptions()).summary
    for quote in claude_words(summary):
        assert f"{said}." not in quote, (quote, text)
        assert f"{said};" not in quote, (quote, text)
        if f"{said}:" in quote:
            # (what follows the colon is the first item under it, or its first words)
            rest = quote.split(f"{said}: ", 1)[1].split("; ")[0].split(", ")[0]
            assert rest and under[0].startswith(rest.rstrip(" …;.,")), (rest, under)
        else:
            # (quoted whole or not at all: review 26 #3, #10)
            assert said not in quote and "…" not in quote, (quote, text)


@settings(max_examples=examples(60, 300), deadline=None)
@given(sizes=st.lists(st.integers(1, 40), min_size=2, max_size=5), what=words,
       last_is_status=st.booleans())
def test_the_reply_after_the_turn_that_changed_most_is_quoted_first(
        sizes: list[int], what: str, last_is_status: bool) -> None:
    """Each turn writes its own file of a generated number of lines and says
    what it changed. The turn that changed the most (the latest of equals)
    is quoted first: alone when it is the last and the first request's turn
    changed less than a third as much, else labelled as said earlier (when
    the last is the largest, the first request's), alone: one answer is
    quoted (review 26 #3, #10); the last small step is never the one quoted."""
    t = Transcript()
    for k, size in enumerate(sizes):
        t.prompt(f"step {k}")
        t.write_file(f"/work/app/f{k}.py", "".join(f"x{n} = {n}\n" for n in range(size)))
        last = k == len(sizes) - 1
        t.say("All tests pass." if last and last_is_status else f"Added {what} number {k}.")
    summary = figures(t.state(), RenderOptions()).summary
    top = max(sizes)
    main = max(k for k, size in enumerate(sizes) if size == top)
    quotes = claude_words(summary)
    assert quotes, summary
    if main == len(sizes) - 1:
        # (the first request's change set, when it is at least a third of the
        # last one's, is quoted first: review 25 M1, 063071b3)
        asked = main > 0 and sizes[0] * 3 >= top
        if last_is_status:
            # (else an answer telling only how it went: the change said before
            # it comes first, test_headline_changes)
            said = 0 if asked else main - 1
            assert quotes == [f"Added {what} number {said}."], summary
            return
        if not asked:
            assert " Claude: " in summary and quotes == [f"Added {what} number {main}."], summary
            return
        main = 0
    assert " Claude, earlier: " in summary, summary
    assert quotes == [f"Added {what} number {main}."], summary


STATEMENTS = ["I've noticed", "There's", "We have", "Ok, so there's", "I am seeing"]
ASKS = ["Can you", "I'd like to", "Let's", "Please", "Could you please"]
ASK_VERBS = ["add", "fix", "find", "remove", "explain"]


@settings(max_examples=examples(60, 300), deadline=None)
@given(opening=st.sampled_from(STATEMENTS), said=words, ask=st.sampled_from(ASKS),
       verb=st.sampled_from(ASK_VERBS), what=words)
def test_a_preamble_sentence_does_not_title_the_request_after_it(
        opening: str, said: str, ask: str, verb: str, what: str) -> None:
    """A first prompt whose first sentence states something and whose next
    asks for something is titled by a line that holds the request, never by
    the statement alone."""
    t = Transcript()
    prompt = f"{opening} {said} here. {ask} {verb} the {what} for me."
    t.prompt(prompt)
    t.say("On it.")
    title = figures(t.state(), RenderOptions()).title
    # (the ask's lead-in "Can you" left out, the verb opens it, capitalised)
    assert f"{verb} the" in title or title.startswith(f"{verb.capitalize()} the"), (
        title, prompt)


HOW_IT_WORKS = ["**How it works:**", "## How it works", "### The flow", "**Usage:**",
                "**What happens:**"]


@settings(max_examples=examples(60, 300), deadline=None)
@given(heading=st.sampled_from(HOW_IT_WORKS), steps=st.lists(words, min_size=2, max_size=5),
       closing=st.one_of(st.none(), words), numbered=st.booleans())
def test_the_steps_of_how_it_works_are_not_quoted_as_what_was_done(
        heading: str, steps: list[str], closing: str | None, numbered: bool) -> None:
    """An answer that walks through how the thing works ("**How it works:**
    1. User visits `/tokenizer`… 2. HTML loads…") tells no work by those
    steps: the headline never quotes them (review 25 N6, 9e953218); a
    sentence after them is quoted instead, when there is one."""
    t = Transcript()
    t.prompt("serve the page from a subfolder")
    t.write_file("/work/app/next.config.js", "a\nb\n")
    marks = [f"{k + 1}." if numbered else "-" for k in range(len(steps))]
    said = "\n".join(f"{m} Cvx {s} lkj" for m, s in zip(marks, steps, strict=True))
    text = f"{heading}\n{said}\n" + (f"\nThe {closing} stays." if closing else "")
    t.say(text)
    summary = figures(t.state(), RenderOptions()).summary
    quoted = " ".join(claude_words(summary))
    assert not any(f"Cvx {s}" in quoted for s in steps), (summary, text)
    if closing:
        assert f"The {closing} stays." in quoted, (summary, text)


PARTS = ["make a feature branch", "add a code comment somewhere", "commit it", "push it",
         "open a PR"]


@settings(max_examples=examples(60, 300), deadline=None)
@given(parts=st.lists(st.sampled_from(PARTS), min_size=1, max_size=5, unique=True),
       committed=st.booleans(), pushed=st.booleans())
def test_a_last_request_left_unanswered_says_what_git_work_it_asked_never_happened(
        parts: list[str], committed: bool, pushed: bool) -> None:
    """A session ending mid-request (no answer) whose request asked to
    commit, push or open a PR: the headline says which of them the session
    never did (review 25 L3: e4d579fb asked "… and then push it" and ended
    before any push), and claims nothing of what it did."""
    t = Transcript()
    t.prompt(", and then ".join(parts) + ".")
    t.write_file("/work/app/prune.ps1", "# resolves the default branch\n")
    if committed:
        t.bash("git commit -m 'add comment'", "[docs/x 1a2b3c4] add comment\n 1 file changed\n")
    if pushed:
        t.bash("git push -u origin docs/x", "To github.com:o/r.git\n * [new branch] docs/x\n")
    t.bash("git status -sb", "## docs/x\n")  # (the last word is a tool call: no answer)
    state = t.state()
    state.status = "ended"  # (the session ended there, not still at work)
    summary = figures(state, RenderOptions()).summary
    # (Claude made calls on it: the transcript ends while it was still on it)
    assert "The transcript ends while Claude was still on the last request" in summary, summary
    asked = " ".join(parts)
    assert ("committed" in summary.split("last request", 1)[1]) == (
        "commit" in asked and not committed), summary
    assert ("pushed" in summary.split("last request", 1)[1]) == (
        "push" in asked and not pushed), summary
    assert ("no PR was opened" in summary or "nor a PR opened" in summary) == (
        "PR" in asked), summary
