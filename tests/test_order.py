"""Claude's answer written before the prompt it answers (fold.order).

Claude Code 2.1.197 can write an answer's line before its prompt's (the
answer's `parentUuid` is the prompt's, or an attachment's chained to it). Here
generated sessions and the corpus's real ones get prompts moved after the first
lines of their own answer, at random, and the fold is checked against an oracle
read from the JSON's parent chain: every assistant line belongs to the nearest
typed prompt it chains up to, so a turn's answer is the last text of the lines
chained to its prompt (when nothing but text came last), and its commands are
the commands of those lines. The fold law holds at every split, a split
between an answer and its prompt included. Parents that never come (a resumed
session's first line) change nothing.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, blocks, examples, json_objects, main_files
from test_answers import typed_prompt
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

Line = dict[str, Any]

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
sentence = st.lists(words, min_size=2, max_size=6).map(" ".join)


# -- the oracle: the parent chain ------------------------------------------------------------


def asked(o: Line) -> bool:
    """A prompt a person gave: typed words, or images alone."""
    if typed_prompt(o):
        return True
    content = (o.get("message") or {}).get("content")
    return (o.get("type") == "user" and not o.get("isMeta") and isinstance(content, list)
            and bool(content) and all(isinstance(b, dict) and b.get("type") in ("text", "image")
                                      for b in content)
            and any(b.get("type") == "image" for b in content))


def owners(lines: list[Line]) -> dict[str, str | None]:
    """Each line's uuid -> the uuid of the typed prompt it chains up to (a
    typed prompt's own: itself; None: its chain leaves the file, or ends at a
    line with no parent)."""
    by_uuid = {str(o["uuid"]): o for o in lines if o.get("uuid")}
    out: dict[str, str | None] = {}
    for uuid in by_uuid:
        path: list[str] = []
        at: str | None = uuid
        while at is not None and at in by_uuid and at not in out and at not in path:
            o = by_uuid[at]
            if asked(o) and not o.get("isSidechain"):
                out[at] = at
                break
            path.append(at)
            parent = o.get("parentUuid")
            at = str(parent) if parent else None
        owner = out.get(at) if at is not None else None
        for p in path:
            out[p] = owner
    return out


def prompt_text(o: Line) -> str:
    content = o["message"]["content"]
    if isinstance(content, list):
        content = " ".join(str(b.get("text") or "") for b in content)
    return str(content)


def plain(text: str) -> str:
    return " ".join(text.split())


def expected(lines: list[Line]) -> dict[str, tuple[str | None, list[str]]]:
    """From the JSON: each typed prompt's uuid -> the answer its turn ends
    with (its chained lines' last block, when that is text; None when it is a
    tool call or nothing came) and the commands run in its turn, in order."""
    owner = owners(lines)
    last: dict[str, tuple[str, str] | None] = {}
    commands: dict[str, list[str]] = {}
    for o in lines:
        if o.get("isSidechain"):
            continue
        uuid = str(o.get("uuid") or "")
        if asked(o) and uuid:
            last.setdefault(uuid, None)
            commands.setdefault(uuid, [])
            continue
        p = owner.get(uuid)
        if p is None or o.get("type") != "assistant" or (o.get("message") or {}).get(
                "model") == "<synthetic>":
            continue
        last.setdefault(p, None)
        commands.setdefault(p, [])
        for b in blocks(o):
            if b.get("type") == "text" and str(b.get("text") or "").strip():
                last[p] = ("text", str(b["text"]).strip())
            elif b.get("type") == "tool_use":
                last[p] = ("tool", "")
                if b.get("name") == "Bash":
                    commands[p].append(str((b.get("input") or {}).get("command")))
    return {p: ((v[1] if v is not None and v[0] == "text" else None), commands[p])
            for p, v in last.items()}


# -- moving prompts after their answers ----------------------------------------------------------


def heads(lines: list[Line], owner: dict[str, str | None]) -> list[tuple[int, int, int]]:
    """Where a prompt can be moved after its own answer's first lines: (i, j,
    k) for a typed prompt at i, the lines i..j-1 (the prompt and what chains
    to it before Claude's first line: attachments) and Claude's lines j..k-1
    after them, all chained to that prompt, so lines i..j-1 may go after any
    of j..k-1."""
    out = []
    for i, o in enumerate(lines):
        uuid = o.get("uuid")
        if not uuid or not asked(o) or o.get("isSidechain"):
            continue
        j = i + 1
        while j < len(lines) and lines[j].get("type") != "assistant" and (
                not lines[j].get("uuid") or owner.get(str(lines[j]["uuid"])) == uuid):
            j += 1
        k = j
        while k < len(lines) and lines[k].get("uuid") and owner.get(
                str(lines[k]["uuid"])) == uuid and not lines[k].get("isSidechain"):
            k += 1
        if k > j and lines[j].get("type") == "assistant":
            out.append((i, j, k))
    return out


def move(lines: list[Line], i: int, j: int, after: int) -> list[Line]:
    """Lines i..j-1 moved to after line `after` (j <= after)."""
    return lines[:i] + lines[j:after + 1] + lines[i:j] + lines[after + 1:]


def shuffle(lines: list[Line], rnd: random.Random, share: float) -> tuple[list[Line], int]:
    """`lines` with about `share` of the prompts that can be moved after the
    first lines of their answer moved there; and how many were."""
    owner = owners(lines)
    moved = 0
    for i, j, k in reversed(heads(lines, owner)):  # from the end: indices before stay true
        if rnd.random() < share:
            lines = move(lines, i, j, rnd.randrange(j, k))
            moved += 1
    return lines, moved


# -- folding -------------------------------------------------------------------------------------


def encoded(lines: list[Line]) -> list[bytes]:
    import json

    return [json.dumps(o).encode() for o in lines]


def fold_lines(data: list[bytes]) -> Fold:
    return fold(Fold(), (decode_line(x) for x in data))


def saved(f: Fold) -> bytes:
    return encode_state(SessionState(fold=f))


def fold_in_two(data: list[bytes], at: int) -> Fold:
    first = fold_lines(data[:at])
    first = decode_state(saved(first)).fold  # type: ignore[union-attr]
    return fold(first, (decode_line(x) for x in data[at:]))


def check_turns(lines: list[Line], f: Fold) -> int:
    """Every typed prompt's turn (found by its words, in order) has the answer
    and the commands the chain gives it; how many prompts were checked."""
    want = expected(lines)
    by_uuid = {str(o["uuid"]): o for o in lines if o.get("uuid")}
    prompts = [t for t in f.turns if t.kind == "prompt"]
    checked = 0
    start = 0
    for uuid in [str(o["uuid"]) for o in lines if o.get("uuid") and str(o["uuid"]) in want]:
        words = plain(prompt_text(by_uuid[uuid]))
        at = next((n for n in range(start, len(prompts))
                   if plain(prompts[n].text) == words), None)
        assert at is not None, (words, [t.text for t in prompts])
        start = at + 1
        turn = prompts[at]
        answer, commands = want[uuid]
        told = [str(a.text) for a in turn.actions if a.kind == "bash"]
        assert told == commands, (words, told, commands)
        if answer is None:
            assert not turn.answer or turn.working, (words, turn.answer)
        else:
            assert plain(turn.answer) == plain(answer) and not turn.working, (
                words, turn.answer, answer)
        checked += 1
    return checked


# -- generated sessions ----------------------------------------------------------------------------


@st.composite
def sessions(draw: st.DrawFn) -> list[Line]:
    """A session of a few turns: a prompt (unique words), maybe attachments
    chained to it, Claude's words and commands; maybe resumed (its first line
    names a parent in another file) or compacted between turns."""
    t = Transcript()
    if draw(st.booleans()):
        t.prompt("earlier words")  # a resumed session: its first parent is elsewhere
        t.lines[0]["parentUuid"] = "feedface-0000-4000-8000-000000000000"
        t.say("earlier answer")
    for n in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 5)) == 0:
            t.raw({"type": "system", "subtype": "compact_boundary", "parentUuid": None,
                   "content": "Conversation compacted",
                   "compactMetadata": {"trigger": "auto", "preTokens": 1000}})
        t.prompt(f"ask {n} {draw(sentence)}")
        for _ in range(draw(st.integers(0, 2))):
            t.raw({"type": "attachment", "attachment": {"type": "todo_reminder", "content": []}})
        steps = draw(st.lists(st.sampled_from(["say", "bash", "snapshot"]), min_size=1,
                              max_size=5))
        for s, step in enumerate(steps):
            if step == "say":
                t.say(f"answer {n} {s} {draw(sentence)}")
            elif step == "bash":
                t.bash(f"echo {draw(words)}{n}{s}", stdout="ok")
            else:
                # A line with no uuid between: chained to nothing.
                t.lines.append({"type": "file-history-snapshot", "messageId": f"m{n}{s}",
                                "snapshot": {}, "isSnapshotUpdate": False})
    last = None  # each line's parent: the line with a uuid before it
    for o in t.lines:
        if "uuid" not in o:
            continue
        if last is not None and o.get("subtype") != "compact_boundary":
            o["parentUuid"] = last
        last = o["uuid"]
    return t.lines


@settings(max_examples=examples(25, 300), deadline=None)
@given(lines=sessions(), seed=st.integers(0, 2**32 - 1), share=st.sampled_from([0.5, 1.0]))
def test_answers_written_before_their_prompt_stay_in_its_turn(
        lines: list[Line], seed: int, share: float) -> None:
    shuffled, _ = shuffle(lines, random.Random(seed), share)
    data = encoded(shuffled)
    whole = fold_lines(data)
    assert check_turns(shuffled, whole) >= 1
    assert not [t for t in whole.turns if t.kind == "continued" and (t.answer or t.actions)
                and not t.detail], whole.turns  # nothing left over
    for at in range(len(data) + 1):
        assert saved(fold_in_two(data, at)) == saved(whole), at


def test_the_client_order_seen_with_2_1_197() -> None:
    """The lines as 2.1.197 wrote them (an instant API, a pty): the answer,
    a snapshot, the prompt (no parent), two attachments chained to it, the
    last one the answer's parent, then the Stop hook's lines."""
    t = Transcript()
    t.prompt("hello there")
    t.lines[0]["parentUuid"] = None
    for _ in range(2):
        t.raw({"type": "attachment", "attachment": {"type": "todo_reminder", "content": []}})
    t.say("hello from the fake API")
    t.raw({"type": "system", "subtype": "turn_duration", "durationMs": 300})
    lines = move(t.lines, 0, 3, 3)
    lines.insert(1, {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}})
    assert lines[0]["type"] == "assistant" and lines[2]["type"] == "user"
    data = encoded(lines)
    f = fold_lines(data)
    assert [(t.kind, t.text, t.answer) for t in f.turns] == [
        ("prompt", "hello there", "hello from the fake API")]
    for at in range(len(data) + 1):
        assert saved(fold_in_two(data, at)) == saved(f), at


def test_an_answer_whose_prompt_never_comes_stays_where_it_was() -> None:
    """A parent in another file (a resumed or forked session): the answer is
    folded where it stands, as before, and nothing waits for it forever."""
    t = Transcript()
    t.prompt("first ask")
    t.say("first answer")
    t.say("late words")
    t.lines[-1]["parentUuid"] = "feedface-0000-4000-8000-000000000000"
    for _ in range(40):  # lines not chained to it
        t.raw({"type": "attachment", "attachment": {"type": "todo_reminder", "content": []},
               "parentUuid": t.lines[0]["uuid"]})
    data = encoded(t.lines)
    f = fold_lines(data)
    assert [(t.kind, t.answer) for t in f.turns] == [("prompt", "late words")]
    assert f.orphan is None
    for at in range(len(data) + 1):
        assert saved(fold_in_two(data, at)) == saved(f), at


# -- the corpus ------------------------------------------------------------------------------------

MAINS = [p for p in main_files() if p.stat().st_size > 0]


@pytest.mark.corpus
@pytest.mark.parametrize("main", MAINS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_prompts_moved_after_their_answers(main: Path) -> None:
    """Each real session with prompts moved after the first lines of their
    answers: the prompts the oracle can tell (a plain request, its turn found
    by its words, no refusal, interruption or API error in its chain) keep the
    answer and the commands the chain gives them, as in the file as written;
    the fold law holds at the splits around every moved line."""
    lines = [o for o in json_objects(main) if isinstance(o, dict)]
    rnd = random.Random(str(main.name))
    shuffled, moved = shuffle(lines, rnd, 0.7)
    if not moved:  # a file with few prompts to move still gets them moved
        shuffled, moved = shuffle(lines, rnd, 1.0)
    data = encoded(shuffled)
    whole = fold_lines(data)
    plain_prompts = _plain_prompts(lines, whole)
    if not plain_prompts and not moved:
        # Nothing here to move or to tell (a file of summaries, or of a
        # subagent's lines): the JSON says so, and the fold law still holds.
        assert not heads(lines, owners(lines)) and shuffled == lines
        for at in range(0, len(data) + 1, max(1, len(data) // examples(10, 40))):
            assert saved(fold_in_two(data, at)) == saved(whole), at
        return
    original = fold_lines(encoded(lines))
    # The oracle holds for the file as written, and as shuffled.
    for f, ls, how in ((original, lines, "as written"), (whole, shuffled, "shuffled")):
        try:
            _check_some(ls, f, plain_prompts)
        except AssertionError as failed:
            raise AssertionError(how) from failed
    if moved:
        places = {n for n, o in enumerate(shuffled) if o.get("type") == "assistant"}
        places = {x for n in places for x in (n, n + 1, n + 2)} & set(range(len(data) + 1))
        for at in sorted(places)[:: max(1, len(places) // examples(10, 40))]:
            assert saved(fold_in_two(data, at)) == saved(whole), at


def _plain_prompts(lines: list[Line], f: Fold) -> set[str]:
    """The typed prompts whose turns the oracle can tell: words that name a
    single prompt turn, and a chain with no refusal, interruption, queued
    prompt or API error in it."""
    owner = owners(lines)
    texts = [plain(str(t.text)) for t in f.turns if t.kind == "prompt"]
    spoiled = set()
    for o in lines:
        p = owner.get(str(o.get("uuid") or ""))
        if p is None:
            continue
        if o.get("isApiErrorMessage") or o.get("subtype") in ("api_error", "error") or any(
                b.get("is_error") for b in blocks(o)) or o.get("isSidechain") or o.get(
                "type") in ("queue-operation",) or "interrupted" in str(
                (o.get("message") or {}).get("content"))[:200]:
            spoiled.add(p)
    # And one whose lines up to the next typed prompt all chain to it (a
    # hand-made file's lines may name no parent at all), no prompt queued
    # between.
    current: str | None = None
    for o in lines:
        uuid = str(o.get("uuid") or "")
        if uuid and owner.get(uuid) == uuid:
            current = uuid
        elif current is not None and (o.get("type") == "queue-operation" or (
                uuid and owner.get(uuid) != current)):
            spoiled.add(current)  # (a prompt queued meanwhile is a turn of its own)
    out = set()
    for o in lines:
        uuid = str(o.get("uuid") or "")
        if uuid in owner and owner[uuid] == uuid and uuid not in spoiled:
            words = plain(prompt_text(o))
            if len(words) < 400 and texts.count(words) == 1:
                out.add(uuid)
    return out


def _check_some(lines: list[Line], f: Fold, uuids: set[str]) -> None:
    want = expected(lines)
    by_uuid = {str(o["uuid"]): o for o in lines if o.get("uuid")}
    turns = {plain(str(t.text)): t for t in f.turns if t.kind == "prompt"}
    for uuid in uuids:
        words = plain(prompt_text(by_uuid[uuid]))
        turn = turns[words]
        answer, commands = want[uuid]
        told = [a for a in turn.actions if a.kind == "bash" and a.tool_id]
        assert len(told) <= len(commands), (words, told, commands)
        if answer is not None:
            cut = plain(answer)[:200]
            assert plain(turn.answer)[:200] == cut or "[REDACTED" in turn.answer, (
                words, turn.answer[:300], answer[:300])
            assert not turn.working, words


@pytest.mark.corpus
def test_the_corpus_has_prompts_to_move() -> None:
    """The corpus check means something: many real prompts are moved, and
    many are told by the oracle."""
    moved = told = 0
    for main in MAINS:
        lines = [o for o in json_objects(main) if isinstance(o, dict)]
        moved += shuffle(lines, random.Random(str(main.name)), 0.7)[1]
        told += len(_plain_prompts(lines, fold_lines(encoded(lines))))
    assert moved >= 30 and told >= 40, (moved, told)
