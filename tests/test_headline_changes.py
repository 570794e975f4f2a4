"""Issue 29, review 22 finding 5: the headline quotes what was changed, not
only a status.

A final answer often opens or closes on a status ("All tests pass.") or on
housekeeping ("Right pane closed, branch cleaned up…") while a summary of
the changes sits beside it. Generated answers mix those parts (a status, a
summary heading or lead-in, a list of changes naming code, housekeeping), in
varied orders and forms; the oracle is the parts themselves: the headline's
"Claude:" words hold the opening words of a change whenever the answer has
one, else its status, else its housekeeping, and every piece of them is a
verbatim cut of Claude's words. Every corpus session whose final answer (by
its JSON) holds a list of changes under a heading or lead-in that says so is
checked alike: its quote is never status alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_answers import last_request_and_answer
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.figures import SUMMARY_WORDS, RenderOptions, figures
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

STATUSES = ["All tests pass.", "All 42 tests pass including integration tests.",
            "The build succeeds.", "Tests pass and lint is clean.", "The fix is complete.",
            "All browser tests are now passing."]
LEADS = ["Here's a summary of the changes:", "Changes made:", "## Summary", "## Changes",
         "**Files modified:**", "Summary of changes:", "### What I changed", ""]
HOUSEKEEPING = ["Right pane closed, branch cleaned up, on latest main.",
                "The working tree is now clean.", "The tmux pane is closed.",
                "Deleted the local branch and checked out main."]
VERBS = ["Added", "Updated", "Fixed", "Removed", "Renamed", "Replaced", "Extracted", "Moved"]

name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)
identifier = st.tuples(name, name, st.sampled_from(["snake", "camel", "call", "type"])).map(
    lambda p: {"snake": f"{p[0]}_{p[1]}", "camel": f"{p[0]}{p[1].capitalize()}",
               "call": f"{p[0]}_{p[1]}()", "type": f"{p[0].capitalize()}{p[1].capitalize()}"}[p[2]])
path = st.tuples(st.sampled_from(["src", "cmd", "lib", "app/core"]), name,
                 st.sampled_from(["py", "go", "rs", "ts"])).map(lambda p: f"{p[0]}/{p[1]}.{p[2]}")


@st.composite
def change(draw: st.DrawFn) -> tuple[str, str, str]:
    """A change item as a list's line, its words as read (no Markdown marker
    nor bold), and its opening words: what any quote of it keeps."""
    verb, ident, where = draw(st.sampled_from(VERBS)), draw(identifier), draw(path)
    rest = draw(st.sampled_from(["", " so the cache is read once", " when the run stops early"]))
    form = draw(st.sampled_from(["plain", "bold-file", "file-colon"]))
    if form == "plain":
        line = f"{verb} `{ident}` in `{where}`{rest}"
        words, opening = line, f"{verb} `{ident}`"
    elif form == "bold-file":
        line = f"**`{where}`** - {verb} `{ident}`{rest}"
        words, opening = line.replace("**", ""), f"`{where}`"
    else:
        line = f"**{ident}**: {verb} the handling in `{where}`{rest}"
        words, opening = line.replace("**", ""), ident
    return line, words, opening


@st.composite
def answers(draw: st.DrawFn) -> dict[str, Any]:
    """A final answer: maybe a status, maybe housekeeping, maybe a summary
    (a heading or lead-in over a list of changes), in a drawn order."""
    status = draw(st.one_of(st.none(), st.sampled_from(STATUSES)))
    chore = draw(st.one_of(st.none(), st.sampled_from(HOUSEKEEPING)))
    changes = draw(st.lists(change(), max_size=4))
    lead = draw(st.sampled_from(LEADS))
    marker = draw(st.sampled_from(["-", "*", "1."]))
    opener = draw(st.sampled_from(["", "Done.", "Perfect!"]))
    blocks: list[str] = []
    if changes:
        items = "\n".join(f"{f'{k + 1}.' if marker == '1.' else marker} {line}"
                          for k, (line, _, _) in enumerate(changes))
        blocks.append(f"{lead}\n\n{items}" if lead else items)
    for part in (status, chore):
        if part is not None:
            blocks.insert(draw(st.integers(0, len(blocks))), part)
    if opener:
        blocks.insert(0, opener)
    if (status is not None and draw(st.booleans()) and blocks[0] == status and len(blocks) > 1
            and not blocks[1].startswith(("#", "*", "-", "1."))):
        blocks[:2] = [f"{blocks[0]} {blocks[1]}"]  # "All tests pass. Here's a summary…:"
    return {"text": "\n\n".join(blocks), "status": status, "chore": chore, "changes": changes}


def _plain(text: str) -> str:
    """Claude's words as read: no list markers, bold, headings or line breaks."""
    text = re.sub(r"(?m)^\s*(?:[-*+•]|\d+[.)]|#+)\s+", "", text)
    return " ".join(text.replace("**", "").split())


def quoted_words(summary: str) -> str:
    assert " Claude: " in summary, summary
    return summary.split(" Claude: ", 1)[1]


def pieces(quote: str) -> list[str]:
    """The quote's pieces: list items ("; "; those under an item ending in
    ":", ", ") and sentences, each as Claude wrote it up to a cut ("…")."""
    said = [p.rstrip(".… ") for p in re.split(r"; |, |(?<=[.!?…]) ", quote)
            if p.rstrip(".… ")]
    # (vv's own count of a list's items left out, test_summary_cuts checks it)
    return [p for p in said if not re.fullmatch(r"and (?:\d+ )?more", p)]


def summary_of(text: str) -> str:
    t = Transcript()
    t.prompt("please make the change")
    t.write_file("/work/app/src/one.py", "x = 1\n")  # (a file changed: no claim is contradicted)
    t.say(text)
    return figures(t.state(), RenderOptions()).summary


@settings(max_examples=examples(80, 400), deadline=None)
@given(answer=answers())
def test_the_headline_quotes_a_change_before_a_status_or_housekeeping(
        answer: dict[str, Any]) -> None:
    text, status, chore, changes = (answer["text"], answer["status"], answer["chore"],
                                    answer["changes"])
    if not (status or chore or changes):
        return
    quote = quoted_words(summary_of(text))
    plain = _plain(text)
    # Never a word of vv's own: each piece is Claude's, verbatim.
    for piece in pieces(quote):
        assert piece in plain, (piece, text)
    assert len(quote) <= SUMMARY_WORDS + 1, quote  # (and the full stop that ends it)
    if changes:
        # A change is what is quoted first, by its opening words.
        assert any(quote.startswith(opening) for _, _, opening in changes), (quote, text)
        if status is not None and status in quote:
            # A status may follow the change; it never stands in its place.
            assert quote.index(status) > 0, quote
        assert chore is None or chore not in quote, quote
    elif status is not None:
        assert quote.startswith(status), (quote, text)
    else:
        assert quote.startswith(str(chore)), (quote, text)


@settings(max_examples=examples(40, 150), deadline=None)
@given(verb=st.sampled_from(VERBS), ident=identifier, where=path,
       status=st.sampled_from(STATUSES), status_first=st.booleans())
def test_a_status_follows_the_change_where_room_allows(
        verb: str, ident: str, where: str, status: str, status_first: bool) -> None:
    """"Added `x` to `y`. All tests pass." is quoted whole: the change, its
    status after it, both Claude's sentences. "All tests pass. Added `x` to
    `y`." is quoted by its change alone: Claude's sentences are never put in
    another order (review 24 N8: 79e9becd read "It changes …. All tests pass."
    where "All tests pass." opened the answer)."""
    change_said = f"{verb} `{ident}` in `{where}`."
    text = f"{status} {change_said}" if status_first else f"{change_said} {status}"
    expected = change_said if status_first else f"{change_said} {status}"
    assert quoted_words(summary_of(text)) == expected


# -- the corpus ---------------------------------------------------------------------------

# The test's own reading of a final answer, from its JSON: a heading or lead-in
# that says changes follow, then list items; a status is tests, the build or "done".
CHANGES_SAID = re.compile(
    r"(?im)^\s*(?:#+\s*|\*\*)?(?:here'?s (?:a |the )?summary of (?:the )?changes|summary of "
    r"(?:the )?changes|changes(?: made)?|files (?:modified|changed)|what i changed)\b.*$")
LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(\S.*)$")
STATUS_ONLY = re.compile(
    r"(?i)^(?:(?:all |the )?(?:\d+ )?(?:\w+ )?(?:tests?|build|lint\w*|checks?)\b[^.;]*"
    r"\b(?:pass\w*|succeed\w*|green|clean)|done|(?:the )?(?:task|fix|work) is (?:complete|done))"
    r"[^.;]*$")


def change_list(answer: str) -> list[str]:
    """The items (plain words) of the first list under a line saying changes follow."""
    lines = answer.splitlines()
    for k, line in enumerate(lines):
        if not CHANGES_SAID.match(line):
            continue
        items = []
        for later in lines[k + 1:]:
            m = LIST_ITEM.match(later)
            if m and len(later) - len(later.lstrip()) < 2:
                items.append(" ".join(m.group(1).replace("**", "").split()))
            elif items and later.strip() and not later.startswith(" "):
                break
        if items:
            return items
    return []


@pytest.mark.corpus
def test_corpus_headlines_are_not_status_only_beside_a_change_list() -> None:
    """Every corpus session whose final answer holds a list of changes: its
    headline's Claude words are not a status alone (d1423492 'All tests pass.',
    e8106766 'All tests pass including integration tests.' before)."""
    checked = 0
    for main in main_files():
        objs = [o for o in json_objects(main) if not o.get("isSidechain")]
        _, answer = last_request_and_answer(objs)
        if answer is None or not change_list(answer):
            continue
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in json_objects(main))))
        summary = figures(state, RenderOptions()).summary
        if " Claude: " not in summary:
            continue
        checked += 1
        quote = quoted_words(summary)
        said = pieces(quote)
        assert not all(STATUS_ONLY.match(p) for p in said), (main, quote)
        plain = _plain(answer)
        assert all(p in plain for p in said), (main, quote)
    assert checked >= 3, checked


def stop_hook(t: Transcript, said: str) -> None:
    """Claude Code's word to Claude that a Stop hook blocked its stop."""
    t.raw({"type": "user", "isMeta": True, "message": {"role": "user", "content": (
        f"Stop hook feedback:\n[${{CLAUDE_PLUGIN_ROOT}}/hooks/stop.sh]: {said}")}})


@settings(max_examples=examples(60, 300), deadline=None)
@given(earlier=change(), how=st.sampled_from(["turn", "stop-hook"]),
       last=st.lists(st.sampled_from(STATUSES + HOUSEKEEPING), min_size=1, max_size=2,
                     unique=True),
       between=st.integers(0, 2), neutral=st.booleans())
def test_an_answer_that_says_only_how_it_went_is_quoted_after_the_change_before_it(
        earlier: tuple[str, str, str], how: str, last: list[str], between: int,
        neutral: bool) -> None:
    """2beb2d34 ('Right pane closed, branch cleaned up…' after a summary of
    changes a turn before) and c64cc478 ('The task is complete.' after a Stop
    hook held back 'I've added the `multiply_numbers` function…'): the
    headline quotes the change, labelled as said earlier, alone (one answer
    is quoted, review 26 #3, #10). A last answer that says anything else, in the turn that made the
    session's biggest change, is quoted as before."""
    line, _, opening = earlier
    if how == "stop-hook":
        # (the answer a hook held back is the turn's latest: words Claude wrote
        # before more tool calls are not an answer, and are never quoted)
        between = 0
    t = Transcript()
    t.prompt("please make the change")
    t.write_file("/work/app/src/one.py", "x = 1\n")
    t.say(f"Summary of changes:\n\n- {line}")
    for k in range(between):  # answers between them that change nothing either
        if how == "turn":
            t.prompt(f"and step {k}")
        t.bash("ls", "one.py\n")
        t.say(STATUSES[k])
    if how == "stop-hook":
        stop_hook(t, "Cannot exit with unstaged changes.")
        t.bash("git status", "nothing to commit\n")
    else:
        t.prompt("close the pane")
        t.bash("tmux kill-pane -t 1", "")
        if neutral:  # (this turn changes more than three times the first: its
            # answer is the headline's, test_headline_main_change)
            t.write_file("/work/app/src/cache.py", "a = 1\nb = 2\nc = 3\nd = 4\n")
    final = " ".join(last + (["The cache keeps its old keys for a day."] if neutral else []))
    t.say(final)
    summary = figures(t.state(), RenderOptions()).summary
    if neutral:
        assert " Claude: " in summary and "Claude, earlier:" not in summary, summary
        return
    assert " Claude, earlier: " in summary, summary
    quote = summary.split(" Claude, earlier: ", 1)[1]
    assert "Claude, last:" not in quote, quote
    assert quote.startswith(opening), (quote, line)
    plain = _plain(line)
    assert all(p in plain for p in pieces(quote)), (quote, line)
