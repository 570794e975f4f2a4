"""Review 26: a title is never cut in the middle of a thought. cde341db read
"Add a flame graph or tracing to find out why: whatever command I invoke
there's a few hundred…" and 488c5296 "I just tried to make a release with
the .github/workflows/release.yml…": cut at whatever word came at 80 (or
100) characters. A cut title now runs on to where its clause ends, within
half again the title's 80 characters, else to where its phrase ends (before
a preposition or conjunction), and says "…" after it.

Generated prompts: runs of words with prepositions, conjunctions and clause
marks among them, alone or after a statement a "why" request asks about.
The oracle is the generated words: every run of the title is the prompt's
words in order; a title ending in "…" stops right before a clause mark or a
word that opens a phrase, when the prompt has one within the reach; none is
longer than 120 characters. Over the corpus, every session without a title
of its own is checked the same way against its first prompt in the JSON.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_headlines import Transcript
from test_request_titles import flat, in_order, said
from test_title_context import own_titled
from test_titles import PHRASE_OPENS
from vibe_vault import text as tx
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.fold.titles import PLAN_PREAMBLE
from vibe_vault.state import Fold, SessionState

REACH = 120
word = st.text(alphabet="bcdfghjklmnprstvwz", min_size=2, max_size=9)
token = st.one_of(word, word, word, st.sampled_from(sorted(PHRASE_OPENS)),
                  word.map(lambda w: w + ","))


def stops_at_a_thought(title: str, line: str, reach: int = REACH) -> bool:
    """A title ending in "…" stops before a clause mark or a word opening a
    phrase of `line`, unless none comes within `reach` characters of the
    title's start (a run after others in a title has less)."""
    if not title.endswith("…"):
        return True
    body = title[:-1].rstrip()
    at = flat(line).find(flat(body))
    if at < 0:
        return True  # (a title of several runs: each checked apart)
    after = " ".join(line.split())[at + len(body):]
    if re.match(r"[,;:.?!]|\s[-–—(\[]", after) or (
            after[:1] == " " and after.split()[0].lower().strip(",;:") in PHRASE_OPENS):
        return True
    # (none within the reach: a cut at a word is all there is)
    rest = " ".join(line.split())[: at + reach]
    return not any(w.lower().strip(",") in PHRASE_OPENS or w.endswith(",")
                   for w in rest[at + len(body):].split()[1:])


@settings(max_examples=examples(200, 600), deadline=None)
@given(words=st.lists(token, min_size=14, max_size=40).map(" ".join))
@example(words="bb I just tried to make a release with the .github/workflows/release.yml through "
               "go release and did run into this issue: sign")
def test_a_cut_title_ends_where_a_thought_ends(words: str) -> None:
    title = tx.title_line(words, 80)
    assert len(title) <= REACH, title
    assert in_order(title, words), (title, words)
    assert stops_at_a_thought(title, words), (title, words)


@settings(max_examples=examples(60, 300), deadline=None)
@given(sub=st.lists(word, min_size=2, max_size=5), thing=st.lists(word, min_size=2, max_size=6),
       where=st.lists(word, min_size=2, max_size=6), obj=st.lists(word, min_size=1, max_size=4))
def test_a_why_request_says_what_it_asks_about_to_where_its_phrase_ends(
        sub: list[str], thing: list[str], where: list[str], obj: list[str]) -> None:
    """cde341db's form: "I've noticed <a clause> there's <a thing> before <a
    place>. I'd like to add <X> to find out why." The title is the request,
    then the words it asks about, ending whole or before "before"."""
    statement = (f"I've noticed whatever {' '.join(sub)} there's a few {' '.join(thing)} "
                 f"before {' '.join(where)}")
    prompt = f"{statement}. I'd like to add a {' '.join(obj)} to find out why."
    t = Transcript()
    t.prompt(prompt)
    t.say("On it.")
    title = title_of(t.state())
    assert len(title) <= REACH, title
    assert all(in_order(p, prompt) for p in title.split(": ")), (title, prompt)
    last = title.split(": ")[-1]
    assert stops_at_a_thought(last, statement, REACH - (len(title) - len(last))), (title,
                                                                                   prompt)


def test_examples_of_review_26_end_their_thought() -> None:
    """The corpus prompts review 26 read, as their users typed their first lines."""
    release = ("I just tried to make a release with the .github/workflows/release.yml through "
               "go release and did run into this issue:  • sign & notarize macOS binaries")
    assert tx.title_line(release, 80) == (
        "I just tried to make a release with the .github/workflows/release.yml through go "
        "release and did run into this issue…")
    delay = ("I've noticed whatever command I invoke (e.g., `./entire help`) there's a few "
             "hundred millis delay before my shell prompt returns.  I'd like to add a flame "
             "graph or tracing or something to find out why.  As lightweight as possible please.")
    assert tx.title_line(delay, 80) == (
        "Add a flame graph or tracing to find out why: whatever command I invoke there's a "
        "few hundred millis delay…")


@pytest.mark.corpus
def test_corpus_titles_end_where_a_thought_ends() -> None:
    """Every corpus session without a title of its own: its title is at most
    120 characters, and where it is cut ("…") its last run of words stops
    before a clause mark or a word opening a phrase of what the user typed."""
    checked = cut = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs) or own_titled(objs):
            continue
        typed = [s for s in (said(o) for o in objs if o.get("type") == "user"
                             and not o.get("isMeta") and not o.get("isSidechain")) if s]
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in objs)))
        title = title_of(state)
        if not typed or title.startswith("Session "):
            continue
        checked += 1
        assert len(title) <= REACH, (path, title)
        last = title.split(": ")[-1]
        lines = [" ".join(ln.split()) for s in typed for ln in s.splitlines() if ln.strip()]
        holding = [ln for ln in lines if flat(last.removesuffix("…")) in flat(ln)]
        if last.endswith("…") and holding:
            cut += 1
            assert any(stops_at_a_thought(last, ln, REACH - (len(title) - len(last)))
                       for ln in holding), (path, title)
    assert checked >= 20 and cut >= 3, (checked, cut)


# -- a report that turns to what does not work -------------------------------------

quiet = st.lists(word, min_size=3, max_size=10).map(" ".join)
TURNS = ["However, ", "But ", "Unfortunately, ", "However, you can see, on both {} screens, "
         "that ", "But as you can see that ", "Still, I can see that "]


@settings(max_examples=examples(60, 300), deadline=None)
@given(before=st.lists(quiet, min_size=1, max_size=3), turn=st.sampled_from(TURNS),
       where=word, wrong=st.lists(word, min_size=4, max_size=14).map(" ".join),
       after=st.lists(quiet, max_size=2), ask=st.booleans())
@example(before=["bbb bbb bbb"], turn=TURNS[3], where="bb", wrong="bb bb bb bb", after=[],
         ask=False)
def test_a_report_that_turns_to_what_does_not_work_is_titled_by_it(
        before: list[str], turn: str, where: str, wrong: str, after: list[str],
        ask: bool) -> None:
    """15eaa3ee's form: sentences of what works, then "However, you can see
    … that <what is wrong>.": with nothing asked anywhere in it, the title is
    what is wrong, from its first word; with a request in it ("Please fix
    the …"), the title is not taken from the turn."""
    sentences = [s[:1].upper() + s[1:] + "." for s in before]
    sentences.append(turn.format(where) + wrong + ".")
    sentences += [s[:1].upper() + s[1:] + "." for s in after]
    if ask:
        sentences.append(f"Please fix the {wrong.split()[0]}.")
    prompt = " ".join(sentences)
    title = tx.title_line(prompt, 80)
    told = wrong[:1].upper() + wrong[1:]
    if ask:
        assert not flat(title).startswith(flat(told)[:12]) or flat(prompt).startswith(
            flat(told)[:12]), (title, prompt)
        return
    body = flat(title.removesuffix("…"))
    assert flat(told).startswith(body) and len(body.split()) >= 3, (title, prompt)
    assert len(title) <= REACH, title


@pytest.mark.corpus
def test_corpus_reports_that_turn_are_titled_by_what_does_not_work() -> None:
    """Every corpus first prompt that asks for nothing (no imperative, ask
    form or question mark in it) and has a sentence opening "However,": its
    title is that sentence's words, in order, from past what only points
    at where to see it (15eaa3ee)."""
    turned = 0
    for path in main_files():
        objs = json_objects(path)
        first = next((s for s in (said(o) for o in objs if o.get("type") == "user"
                                  and not o.get("isMeta")) if s), "")
        if not first or "?" in first or first.startswith(PLAN_PREAMBLE) or re.search(
                r"(?i)\b(?:please|can you|could you|let's|i'd like|i want|fix|add)\b", first):
            continue
        m = re.search(r"(?<=[.!]\s)However,\s+([^.!?]+)", " ".join(first.split()))
        if m is None:
            continue
        title = tx.title_line(first, 80)
        wrong = re.sub(r"(?i)^you can see\b.*?\bthat\s+", "", m.group(1))
        assert in_order(title, wrong) and flat(title)[:20] == flat(wrong)[:20], (path, title)
        turned += 1
    assert turned >= 1, turned  # 15eaa3ee
