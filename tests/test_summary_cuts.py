"""Issue 29 review, F21: the summary's "Claude:" words are cut after a whole
list item or sentence, with " …" saying more followed, never mid-item.

Generated last answers list generated items (or run generated sentences);
the oracle is those items: what the summary quotes is the first k of them,
whole, joined as the answer listed them.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.figures import MIN_ITEM_SHARE, SUMMARY_WORDS, RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.fold.context import ANSWER_CHARS
from vibe_vault.state import Fold, SessionState

# Words without vowels: none is an English word, so no item claims an action (files
# "written", "committed", "pushed") that this session's facts would contradict and
# the summary rightly leaves out (test_answers and test_facts check those): what is checked
# here is where the words are cut, whatever they are.
unclaiming = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=2, max_size=9)
item = st.lists(unclaiming, min_size=3, max_size=14).map(" ".join)


def claude_words(summary: str) -> str:
    return re.split(r" Claude(?:, before it)?: ", summary, maxsplit=1)[1]


def say_last(t: Transcript, answer: str) -> None:
    """`answer` as the words the summary quotes: the session's last answer,
    which the note keeps whole; or, past ANSWER_CHARS, an answer before a
    last request that got none, of which the note keeps the first
    ANSWER_CHARS characters (quoted as "Claude, before it:")."""
    t.say(answer)
    if len(answer) > ANSWER_CHARS:
        t.prompt("now the docs")
        t.bash("ls", "a.py\n")


# A word opening an item's detail after the words that say what it did
# ("Fixed the logging| from …", "Added a hook| (constant, …)").
DETAIL = ["to", "from", "for", "with", "("]
MORE = re.compile(r"; and (\d+) more\.$")


def head_of(part: str) -> str:
    """This test's reading of an item's words before its detail (two or more)."""
    words = part.split(" ")
    for k in range(2, len(words)):
        if words[k] in DETAIL[:-1] or words[k].startswith("("):
            return " ".join(words[:k])
    return part


def most_kept(part: str) -> int:
    """The most characters a quote keeps of an item when its list has no room
    for more: the words before its detail and a "…", when they are 48
    characters or fewer (about 8 words), else 40."""
    head = head_of(part)
    return len(head) + 1 if head != part and len(head) <= 48 else min(len(part), 40)


def is_piece(piece: str, part: str) -> bool:
    """The item whole, or its first words cut at a word, "…", keeping at least
    the words before its detail when they are few."""
    if piece == part:
        return True
    body = piece.removesuffix("…")
    head = head_of(part)
    return (piece.endswith("…") and part.startswith(body) and part[len(body)] == " "
            and (head == part or len(head) > 48 or len(body) >= len(head)))


@settings(max_examples=examples(40, 150), deadline=None)
@given(items=st.lists(st.tuples(item, st.one_of(st.none(), st.tuples(
    st.sampled_from(DETAIL), item))), min_size=2, max_size=12), listed=st.booleans())
def test_claudes_words_are_cut_after_a_whole_item_or_sentence(
        items: list[tuple[str, tuple[str, str] | None]], listed: bool) -> None:
    t = Transcript()
    t.prompt("tidy the module")
    parts = [f"{i.capitalize()} done" + (
        "" if d is None else f" ({d[1]})" if d[0] == "(" else f" {d[0]} {d[1]}")
        for i, d in items]
    # A list is quoted as its items joined by "; "; prose by one sentence.
    answer = ("Summary:\n" + "\n".join(f"- {p}" for p in parts) if listed
              else " ".join(f"{p}." for p in parts))
    say_last(t, answer)
    said = claude_words(figures(t.state(), RenderOptions()).summary)
    if not listed:
        assert said in [f"{p}." for p in parts], said  # a sentence, whole
        return
    if len(answer) > ANSWER_CHARS:
        # The note keeps the answer's first ANSWER_CHARS characters: how many
        # items it had past them is not known, and no count is said.
        assert not MORE.search(said), (said, parts)
        kept = [p for p in said.removesuffix(".").split("; ") if p != "and more"]
        for piece, part in zip(kept, parts, strict=False):
            assert is_piece(piece, part) or piece.endswith(" …") or piece == part[:len(piece)], (
                piece, part)
        return
    joined = "; ".join(parts)
    if len(joined) <= SUMMARY_WORDS:
        assert said == joined + ".", (said, joined)
        return
    assert len(said) <= SUMMARY_WORDS + 1, said
    room = SUMMARY_WORDS - 2 * (len(parts) - 1) - 1
    most = [most_kept(p) for p in parts]
    more = MORE.search(said)
    if said.endswith(" …"):
        # Cut after whole items, as prose is: only when not even two items
        # can be told by their first words with how many more there are.
        assert most[0] + 2 + most[1] + len(f"; and {len(parts) - 2} more") > SUMMARY_WORDS - 1, (
            said, parts)
        kept = said.removesuffix(" …")
        assert len(kept) <= SUMMARY_WORDS
        if len(parts[0]) < SUMMARY_WORDS - 2:
            k = next((k for k in range(1, len(parts)) if "; ".join(parts[:k]) == kept), 0)
            assert k >= 1, (kept, parts)
        return
    if more is not None:
        # The first items, each by at least the words that say what it did,
        # and how many more: only when every item's could not be kept (062a8bdd).
        pieces = said[:more.start()].split("; ")
        assert len(pieces) >= 2 and len(pieces) + int(more.group(1)) == len(parts), (said, parts)
        assert sum(most) > room, (said, parts)
        for piece, part in zip(pieces, parts, strict=False):
            assert is_piece(piece, part), (piece, part)
        return
    # Every item, in order: each whole or its first words cut at a word, "…".
    pieces = said.removesuffix(".").split("; ")
    assert len(pieces) == len(parts), (pieces, parts)
    for piece, part in zip(pieces, parts, strict=True):
        assert is_piece(piece, part), (piece, part)


LABEL = st.tuples(item.map(lambda w: " ".join(w.split()[:3]).capitalize()),
                  st.text(alphabet="0123456789abcdef", min_size=7, max_size=7),
                  st.sampled_from([" - ", " — ", ": "]))


@settings(max_examples=examples(40, 150), deadline=None)
@given(items=st.lists(st.tuples(st.one_of(st.none(), LABEL), item), min_size=2, max_size=6),
       numbered=st.booleans())
def test_a_list_too_long_keeps_each_items_name(
        items: list[tuple[tuple[str, str, str] | None, str]], numbered: bool) -> None:
    """Review 20 N3 (a7da6a22): a list whose items name themselves before
    their description ("**Tar support** (`70f2781`) - Added support for …")
    and do not fit whole is quoted with every item's name, in order, so that
    the last items (there the session's real work) are not cut off."""
    parts = [f"{label[0]} (`{label[1]}`){label[2]}{desc} done" if label else f"{desc} done"
             for label, desc in items]
    names = [f"{label[0]} (`{label[1]}`)" if label else "" for label, _ in items]
    t = Transcript()
    t.prompt("tidy the module")
    answer = "Summary:\n" + "\n".join(
        f"{k + 1}. {p}" if numbered else f"- {p}" for k, p in enumerate(parts))
    say_last(t, answer)
    said = claude_words(figures(t.state(), RenderOptions()).summary)
    if len("; ".join(parts)) <= SUMMARY_WORDS:
        assert said == "; ".join(parts) + ".", said
        return
    room = SUMMARY_WORDS - 2 * (len(parts) - 1) - 1
    fair = sum(len(n) if n else min(len(p), MIN_ITEM_SHARE) for n, p in zip(
        names, parts, strict=True))
    if fair > room:
        return  # (too many to name each: checked above)
    pieces = said.removesuffix(".").split("; ")
    if len(answer) > ANSWER_CHARS:
        # (the note keeps the answer's first ANSWER_CHARS characters: the items
        # it holds, then that more followed)
        assert pieces[-1] == "and more", (said, parts)
        pieces, parts, names = pieces[:-1], parts[:len(pieces) - 1], names[:len(pieces) - 1]
    assert len(pieces) == len(parts), (said, parts)
    for piece, part, name in zip(pieces, parts, names, strict=True):
        assert piece == (name or piece) and part.startswith(piece.removesuffix("…")), (
            piece, part)


@settings(max_examples=examples(30, 100), deadline=None)
@given(said=item, later=item, calls=st.integers(1, 3))
def test_a_last_request_with_no_answer_still_says_what_claude_said_before(
        said: str, later: str, calls: int) -> None:
    """79e9becd: the last request got no answer (the transcript ends on a
    tool call, review 26 #17: while Claude was still on it); the summary says so, then Claude's words from the last turn
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
        f"The transcript ends while Claude was still on the last request (after "
        f"{calls} call{'s' if calls > 1 else ''}). Claude, before it: {said.capitalize()} now."), summary
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
    # (its first item first: whole, or its first words when the list is long)
    assert said.startswith(parts[0].split()[0]), (said, parts)


def _lists_of(answer: str) -> list[list[str]]:
    """The top-level items of each of an answer's lists, bold marks out, in
    order: a line of prose (not indented, not an item) ends a list."""
    item = re.compile(r"\s*(?:\d+[.)]|[-*•])\s+\S")
    runs: list[list[str]] = [[]]
    for ln in answer.splitlines():
        if item.match(ln) or (ln.startswith((" ", "\t")) and runs[-1]) or not ln.strip():
            runs[-1].append(ln)
        elif runs[-1]:
            runs.append([])
    out = []
    for run in runs:
        lines = [ln for ln in run if item.match(ln)]
        if not lines:
            continue
        top = min(len(ln) - len(ln.lstrip()) for ln in lines)
        items: list[str] = []
        joining = False  # the items under the last item, which ended in ":", go on it
        for ln in lines:
            words = " ".join(re.sub(r"^\s*(?:\d+[.)]|[-*•])\s+", "", ln).replace("**", "").split())
            if len(ln) - len(ln.lstrip()) == top:
                items.append(words)
                joining = False
            elif items and (joining or items[-1].endswith(":")):
                # (an item ending in ":" says what it did in the items under
                # it: they are quoted on it, "Fixed it by setting: a, b")
                items[-1] += (", " if joining else " ") + words
                joining = True
        out.append(items)
    return out


@pytest.mark.corpus
def test_corpus_lists_quoted_keep_every_item_that_has_room() -> None:
    """Every corpus session whose summary quotes a list of Claude's: the quote
    holds, in order, a piece of each of the list's items from the one it
    starts at (each piece the item's first words), unless the items are too
    many for each to get MIN_ITEM_SHARE characters; a7da6a22's four items
    (a docs commit, an empty one, tar support, error reporting) are all there."""
    quoted = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs):
            continue
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in objs)))
        summary = figures(state, RenderOptions()).summary
        if " Claude: " not in summary:
            continue
        said = claude_words(summary)
        pieces = said.removesuffix(" …").removesuffix(".").split("; ")
        if len(pieces) < 2:
            continue
        start = pieces[0].removesuffix("…").replace("`", "")[:30]
        answers = [b.get("text", "") for o in objs if o.get("type") == "assistant"
                   and not o.get("isSidechain") for b in o["message"].get("content", [])
                   if isinstance(b, dict) and b.get("type") == "text"]
        items = next((its[k:] for text in reversed(answers) for its in _lists_of(text)
                      for k, x in enumerate(its) if x.replace("`", "").startswith(start)), [])
        if len(items) < 2:
            continue  # (a sentence with "; " in it, not a list)
        quoted += 1
        room = SUMMARY_WORDS - 2 * (len(items) - 1) - 1
        if said.endswith(" …"):
            assert sum(min(len(x), MIN_ITEM_SHARE) for x in items) > room - len(items), (
                path, said)
            continue
        more = MORE.search(said)
        if more is not None:
            # (the first items and how many more: 062a8bdd's seven)
            pieces = said[:more.start()].split("; ")
            assert len(pieces) >= 2 and len(pieces) + int(more.group(1)) == len(items), (
                path, said, items)
            items = items[:len(pieces)]
        assert len(pieces) == len(items), (path, pieces, items)
        for piece, whole in zip(pieces, items, strict=True):
            assert whole.startswith(piece.removesuffix("…").rstrip(".;: ")), (path, piece, whole)
        if path.name.startswith("a7da6a22"):
            assert "Tar support (`70f2781`)" in said and "`e4e6a03`" in said, said
    assert quoted >= 3, quoted
