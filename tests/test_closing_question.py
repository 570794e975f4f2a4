"""Review 15, finding 4: a session that ends on Claude asking the user has an
open thread saying so.

Each generated session ends with an answer made of sentences and one kind of
ending (a question, options below a line that asks, a statement, an
invitation that asks nothing, a summary's list), and then maybe a later
prompt, a `/exit`, or nothing. What the note must say follows from how the
transcript was built: an open thread quoting the question exactly when the
answer ends asking and no prompt comes after it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, main_files
from test_headlines import Transcript, phrase
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

ASKED = "Claude asked, and the session ended with no reply"


def sentence(words: str) -> str:
    return words[0].upper() + words[1:] + "."


endings = st.sampled_from(["question", "options", "options-question", "statement",
                           "invitation", "summary-list"])


def ending_text(kind: str, words: list[str]) -> tuple[str, list[str]]:
    """The answer's last lines, and the words a thread must quote ([] for none)."""
    a, b, c = words
    if kind == "question":
        return f"Should I {a}?", [f"Should I {a}?"]
    if kind == "options":
        return (f"Since that is done, should I:\n\n1. {sentence(a)}\n2. Or {b}?\n",
                ["should I:", f"1. {sentence(a)}", f"2. Or {b}?"])
    if kind == "options-question":
        return (f"Which approach do you prefer?\n- **{a}**\n- {b}\n",
                ["Which approach do you prefer?", a, b])
    if kind == "statement":
        return f"Everything {a} works now.", []
    if kind == "invitation":
        return f"Open the console and let me know if you see any errors! It {c}.", []
    return f"Changes made:\n1. {sentence(a)}\n2. {sentence(b)}\n", []


@settings(max_examples=examples(50, 150), deadline=None)
@given(body=st.lists(phrase, max_size=3), kind=endings,
       words=st.lists(phrase, min_size=3, max_size=3),
       after=st.sampled_from(["nothing", "exit", "prompt-answered", "prompt-unanswered"]),
       padding=st.integers(0, 2000))
def test_an_answer_ending_on_a_question_leaves_an_open_thread(
        body: list[str], kind: str, words: list[str], after: str, padding: int) -> None:
    t = Transcript()
    t.prompt("look into the failing build")
    closing, quoted = ending_text(kind, words)
    # A long answer: the question is at its end, past what a turn's excerpt keeps.
    filler = " ".join(sentence(p) for p in body) + (" Detail." * (padding // 8))
    t.say(f"{filler}\n\n{closing}".strip())
    if after == "exit":
        t.slash("exit", "")
        t.prompt("<local-command-stdout>See ya!</local-command-stdout>")
    elif after.startswith("prompt"):
        t.prompt("thanks, one more thing")
        if after == "prompt-answered":
            t.say("Sure, done.")
    note = render(SessionState(session_id=t.sid, project="app",
                               fold=fold(Fold(), (decode_line(x) for x in t.encoded()))))
    threads = note.split("\n## Open threads\n", 1)
    asked = [ln for ln in (threads[1].split("\n## ", 1)[0] if len(threads) == 2 else "")
             .splitlines() if ASKED in ln]
    if quoted and after in ("nothing", "exit"):
        assert len(asked) == 1, note
        for part in quoted:
            assert part.replace("**", "") in asked[0] or asked[0].endswith("…”"), (part, asked)
    else:
        assert not asked, note


# Every corpus session's ending read from its JSON (the last text of the main
# agent and what the user sent after it): these two end on a question nobody
# answered (839b35f7: "should I: 1. Delete … 2. … 3. …?"; a318ad73: "Should I
# now proceed with implementation?"). 79e9becd asks too, but a prompt follows
# (its thread says that request got no answer); the others end on statements,
# summaries or invitations that ask nothing ("let me know if you see any errors!").
ENDS_ASKING = {"839b35f7", "a318ad73"}


@pytest.mark.corpus
def test_the_corpus_sessions_that_end_asking_say_so(tmp_path: object) -> None:
    found: set[str] = set()
    for path in main_files():
        lines = path.read_bytes().splitlines()
        state = SessionState(session_id="x", project="p",
                             fold=fold(Fold(), (decode_line(x) for x in lines if x.strip())))
        note = render(state)
        if ASKED in note:
            sid = next((str(o.sessionId) for o in (decode_line(x) for x in lines[:50])
                        if getattr(o, "sessionId", None)), "")
            found.add(sid[:8])
    assert found == ENDS_ASKING


@settings(max_examples=60, deadline=None)
@given(kind=endings, words=st.lists(phrase, min_size=3, max_size=3),
       prs=st.lists(st.tuples(st.sampled_from(["acme/app", "o/tool"]), st.integers(1, 999)),
                    max_size=3, unique=True))
def test_the_summary_says_how_the_session_ended_and_the_prs_it_made(
        kind: str, words: list[str], prs: list[tuple[str, int]]) -> None:
    """The summary names the PRs the transcript's `pr-link` entries give (two
    at most; more are counted) and, when the last answer asks the user with no
    reply after it, says the session ended on that question."""
    from vibe_vault.figures import RenderOptions, figures

    t = Transcript()
    t.prompt("open the pull requests")
    for repo, number in prs:
        t.raw({"type": "pr-link", "prNumber": number, "prRepository": repo,
               "prUrl": f"https://github.com/{repo}/pull/{number}"})
    closing, quoted = ending_text(kind, words)
    t.say(f"All three are open.\n\n{closing}")
    state = SessionState(session_id=t.sid, project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    summary = figures(state, RenderOptions()).summary
    if 0 < len(prs) <= 2:
        for repo, number in prs:
            assert f"PR {repo}#{number}" in summary, summary
    elif prs:
        assert f"{len(prs)} PRs" in summary, summary
    assert ("ended with Claude asking" in summary) == bool(quoted), summary
