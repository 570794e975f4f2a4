"""A conversation rewound (fold.rewinds): a prompt sent from an earlier point.

Generated sessions: prompts answered with text, tool calls, Stop-hook summary
lines; at any prompt the user may rewind to the end of any earlier turn of the
conversation as it then stood (the new prompt's `parentUuid` is that turn's
last line, as Claude Code writes it); some prompts are written after the first
line of their answer (Claude Code 2.1.197), which moves no branch.

The oracle is the JSON's parent tree, not the fold's bookkeeping: the
conversation before a prompt is the chain of ancestors of the line written
just before it (the branch being followed); the prompt leaves the typed prompts
of that chain that are not its own ancestors, and it goes on from its nearest
ancestor prompt. The note says so at the prompt ("Rewound to the turn of
HH:MM: the N turns after it were left…"), and each prompt left says which
rewind left it; no other prompt says either. The fold law holds at every split.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, examples, json_objects
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

Line = dict[str, Any]
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _at(turn: int, second: int) -> str:
    return (START + timedelta(minutes=turn, seconds=second)).isoformat().replace("+00:00", "Z")


@st.composite
def sessions(draw: st.DrawFn) -> list[Line]:
    """A session's lines, with rewinds drawn among its prompts."""
    lines: list[Line] = []
    ends: list[str] = []  # the last line of each turn, in order
    active: list[int] = []  # the turns of the branch being followed
    tip: str | None = None
    for i in range(draw(st.integers(2, 9))):
        parent = tip
        if len(active) >= 2 and draw(st.integers(0, 3)) == 0:
            k = draw(st.sampled_from(active[:-1]))  # back to the end of an earlier turn
            parent = ends[k]
            active = active[:active.index(k) + 1]
        n = 0

        def line(kind: str, parent_uuid: str | None, i: int = i, **more: Any) -> Line:
            nonlocal n
            n += 1
            return {"type": kind, "uuid": f"u{i:02d}-{n:02d}", "parentUuid": parent_uuid,
                    "sessionId": "s", "timestamp": _at(i, n), "cwd": "/w", **more}

        prompt = line("user", parent, message={"role": "user",
                                                "content": f"question number {i} please"})
        turn = [prompt]
        last = prompt["uuid"]
        if draw(st.booleans()):  # a tool call and its result
            call = line("assistant", last, message={
                "id": f"m{i}a", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": "Bash",
                             "input": {"command": f"echo {i}"}}],
                "usage": {"input_tokens": 1, "output_tokens": 1}})
            result = line("user", call["uuid"], message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{i}", "content": str(i)}]})
            turn += [call, result]
            last = result["uuid"]
        answer = line("assistant", last, message={
            "id": f"m{i}b", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"answer number {i}"}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        turn.append(answer)
        last = answer["uuid"]
        if draw(st.booleans()):
            summary = line("system", last, subtype="stop_hook_summary", hookCount=1)
            turn.append(summary)
            last = summary["uuid"]
        if i and parent == tip and draw(st.integers(0, 4)) == 0:
            turn.insert(1, turn.pop(0))  # (2.1.197: the answer's first line first)
        lines += turn
        ends.append(last)
        active.append(i)
        tip = last
    return lines


def expected(lines: list[Line]) -> tuple[dict[int, tuple[int, int]], dict[int, int]]:
    """From the parent tree: the prompts that rewound (number -> the turns
    they left, the prompt they go on from) and the prompts left (number -> the
    prompt whose rewind left them first)."""
    by_uuid = {o["uuid"]: o for o in lines}

    def prompt_no(o: Line) -> int | None:
        content = (o.get("message") or {}).get("content")
        if o["type"] == "user" and isinstance(content, str):
            return int(content.split()[2])
        return None

    def ancestors(uuid: str | None) -> list[int]:
        out: list[int] = []
        while uuid is not None and uuid in by_uuid:
            no = prompt_no(by_uuid[uuid])
            if no is not None:
                out.append(no)
            uuid = by_uuid[uuid]["parentUuid"]
        return out

    rewound: dict[int, tuple[int, int]] = {}
    left: dict[int, int] = {}
    for at, o in enumerate(lines):
        no = prompt_no(o)
        if no is None or not at:
            continue
        # The branch being followed: the chain of the line written just before.
        then = set(ancestors(lines[at - 1]["uuid"])) - {no}
        mine = ancestors(o["parentUuid"])
        gone = sorted(then - set(mine))
        if gone:
            rewound[no] = (len(gone), mine[0])
            for g in gone:
                left.setdefault(g, no)
    return rewound, left


def _notes(lines: list[Line], split: int | None = None) -> tuple[str, Fold]:
    decoded = [decode_line(__import__("json").dumps(o).encode()) for o in lines]
    state = SessionState(session_id="s")
    if split is None:
        fold(state.fold, decoded)
    else:
        fold(state.fold, decoded[:split])
        state = decode_state(encode_state(state))
        fold(state.fold, decoded[split:])
    return render(state), state.fold


def _headings(note: str) -> dict[int, str]:
    """Prompt number -> its heading and the lines up to its quote."""
    story = note.split("## Story", 1)[1]
    out: dict[int, str] = {}
    for block in story.split("\n### ")[1:]:
        for word in block.split("question number ")[1:2]:
            out[int(word.split()[0])] = block.split("\n> ", 1)[0]
    return out


def _hhmm(no: int) -> str:
    return (START + timedelta(minutes=no)).strftime("%H:%M")


@settings(max_examples=examples(150, 1500), deadline=None)
@given(sessions(), st.data())
def test_a_rewind_and_the_turns_it_left_are_told(lines: list[Line], data: st.DataObject) -> None:
    rewound, left = expected(lines)
    note, whole = _notes(lines)
    heads = _headings(note)
    prompts = {int(o["message"]["content"].split()[2]) for o in lines
               if o["type"] == "user" and isinstance(o["message"]["content"], str)}
    assert set(heads) == prompts, note
    for no, head in heads.items():
        if no in rewound:
            count, to = rewound[no]
            turns = "the turn after it was" if count == 1 else f"the {count} turns after it were"
            assert (f"*Rewound to the turn of {_hhmm(to)}: {turns} left out of the "
                    "conversation Claude went on with.*") in head, (no, head, rewound)
        else:
            assert "Rewound" not in head, (no, head, rewound)
        heading = head.splitlines()[0]
        if no in left:
            assert heading.endswith(f"(left by the rewind at {_hhmm(left[no])})"), (no, head)
        else:
            assert "left by" not in heading, (no, head, left)
    # The fold law: any split gives the same turns.
    split = data.draw(st.integers(0, len(lines)))
    _, parts = _notes(lines, split)
    assert encode_state(SessionState(session_id="s", fold=parts)) == \
        encode_state(SessionState(session_id="s", fold=whole))


@pytest.mark.corpus
def test_the_corpus_rewinds_are_told() -> None:
    """The real sessions with a rewind (found here from the parent tree: a typed
    prompt whose parent already had a child that began another branch) tell it,
    and no other session says it rewound."""
    import json

    found: list[str] = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        lines = json_objects(path)
        children: dict[str, int] = {}
        rewinds = 0
        for o in lines:
            parent = o.get("parentUuid")
            content = (o.get("message") or {}).get("content")
            typed = (o.get("type") == "user" and not o.get("isMeta") and not o.get("isSidechain")
                     and isinstance(content, str) and content.strip()
                     and not content.lstrip().startswith("<"))
            if typed and parent and children.get(parent):
                rewinds += 1
            if parent and not o.get("isSidechain"):
                children[parent] = children.get(parent, 0) + 1
        state = SessionState(session_id="s")
        fold(state.fold, [decode_line(json.dumps(o).encode()) for o in lines])
        told = sum(1 for t in state.fold.turns if t.rewound)
        if rewinds or told:
            found.append(path.name)
        if "small.jsonl" in path.name:
            continue  # (a fixture trimmed out of order: its parents come after their children)
        assert told == rewinds, (path, told, rewinds)
    assert len(found) >= 2, found
