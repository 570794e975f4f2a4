"""A slash command typed while Claude worked (review 15, finding 6): Claude
Code queues it (`queue-operation` enqueue), takes it off the queue (`remove`)
and runs it once the turn has ended (a `system`/`local_command` line). The
turn's answer stays under the prompt it answers; the command is a turn of its
own at the time it ran; it counts as a prompt as a typed command does (with
words after it, not a built-in's setting), never because it was queued.

Generated: the command (bare, with a request, a setting), when it was typed
and taken off the queue within the turn, whether Claude Code wrote the turn's
end (`turn_duration`), whether a typed prompt was queued too. The oracle is
the generated JSON: each turn's prompt (by the entries' order and times) and
the answer that closes it.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import json_objects as objects
from conftest import main_files
from test_headlines import Transcript
from test_trust import folded
from vibe_vault.entries import decode_lines
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

COMMANDS = [("/skills", "", False), ("/context", "", False), ("/model", "opus", False),
            ("/review", "the open pull request", True)]


def _story(note: str) -> str:
    return note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]


def _turns(story: str) -> list[tuple[str, str]]:
    """Each turn of the story: its heading line and the lines under it."""
    out: list[tuple[str, str]] = []
    for block in re.split(r"\n(?=### )", "\n" + story):
        block = block.strip("\n")
        if block.startswith("### "):
            head, _, body = block.partition("\n")
            out.append((head, body))
    return out


@settings(max_examples=60, deadline=None)
@given(command=st.sampled_from(COMMANDS), typed_at=st.integers(0, 2),
       ended=st.booleans(), also_prompt=st.booleans(), cut=st.floats(0, 1))
def test_a_queued_command_runs_as_its_own_turn(command: tuple[str, str, bool], typed_at: int,
                                               ended: bool, also_prompt: bool,
                                               cut: float) -> None:
    name, args, request = command
    typed = f"{name} {args}".strip()
    t = Transcript()
    t.prompt("check the tests again")
    queue: list[str] = []

    def enqueue(text: str) -> None:
        t.raw({"type": "queue-operation", "operation": "enqueue", "content": text})
        queue.append(text)

    def take() -> None:
        if queue:
            t.raw({"type": "queue-operation",
                   "operation": "remove" if queue[0].startswith("/") else "dequeue"})
            queue.pop(0)

    if typed_at == 0:
        enqueue(typed)
    t.bash("make test", "ok all passed")
    if typed_at == 1:
        enqueue(typed)
    if also_prompt:
        enqueue("and the lint too")
    t.bash("make integration", "ok integration")
    if typed_at == 2:
        enqueue(typed)
    while queue and queue[0].startswith("/"):
        take()  # a command is taken off the queue before Claude's last words
    answer = "All tests pass and the pull request is ready to merge."
    t.say(answer)
    if ended:
        t.raw({"type": "system", "subtype": "stop_hook_summary", "content": ""})
        t.raw({"type": "system", "subtype": "turn_duration", "durationMs": 5000})
    t.raw({"type": "system", "subtype": "local_command", "content":
           f"<command-name>{name}</command-name>\n<command-message>{name[1:]}"
           f"</command-message>\n<command-args>{args}</command-args>"})
    t.raw({"type": "system", "subtype": "local_command",
           "content": "<local-command-stdout>Dialog dismissed</local-command-stdout>"})
    ran_at = t.lines[-2]["timestamp"][11:16]
    if also_prompt:
        take()
        t.prompt("and the lint too")
        t.say("Lint is clean.")
    t.prompt("thanks")
    t.say("Glad to help.")
    raw = t.encoded()
    at = int(cut * len(raw))  # read in two hook runs, split anywhere
    state = SessionState(session_id=t.sid, project="app", fold=fold(
        fold(Fold(), decode_lines(raw[:at])), decode_lines(raw[at:])))
    turns = _turns(_story(render(state)))
    heads = [h for h, _ in turns]
    # The answer, under the prompt it answers.
    mine = next(body for head, body in turns if head.endswith("· Prompt")
                and "check the tests again" in body)
    assert answer in mine
    # The command: a turn of its own, when it ran, answer-less, once.
    runs = [(h, b) for h, b in turns if f"`{typed}`" in h or typed in b.split("\n", 1)[0]]
    assert len(runs) == 1, heads
    head, body = runs[0]
    assert head.startswith(f"### {ran_at} · "), head
    assert answer not in body and "Claude:" not in body
    assert not any("typed while Claude worked" in h for h, b in turns if typed in b)
    prompts = 2 + also_prompt + request
    assert state.fold.prompts == prompts


@pytest.mark.corpus
def test_every_corpus_local_command_after_a_turn_is_its_own_turn() -> None:
    """Every `local_command` run in the corpus whose parent chain reaches back
    to a `turn_duration` before any prompt (run after the turn ended): a turn
    of its own at its time, and the turn before keeps its answer."""
    seen = 0
    for main in main_files():
        objs = objects(main)
        if not any(o.get("subtype") == "local_command" for o in objs):
            continue
        by_uuid = {o["uuid"]: o for o in objs if o.get("uuid")}
        runs = []
        for o in objs:
            content = o.get("content")
            if o.get("subtype") != "local_command" or not isinstance(content, str) \
                    or "<command-name>" not in content:
                continue
            parent = by_uuid.get(o.get("parentUuid") or "")
            while parent is not None and parent.get("type") == "system" \
                    and parent.get("subtype") != "turn_duration":
                parent = by_uuid.get(parent.get("parentUuid") or "")
            if parent is not None and parent.get("subtype") == "turn_duration":
                runs.append(o)
        if not runs:
            continue
        state = folded(main)
        for o in runs:
            name = o["content"].split("<command-name>", 1)[1].split("<", 1)[0]
            turn = next((t for t in state.fold.turns if t.ts == o["timestamp"]), None)
            assert turn is not None and turn.kind == "command", (main, name)
            assert turn.text.startswith(name) and not turn.answer
            before = state.fold.turns[state.fold.turns.index(turn) - 1]
            assert before.answer, (main, name)  # (its answer was not moved)
            seen += 1
    assert seen, "the corpus has a local command run after its turn"


ITEMS = ["and the lint too", "also update the changelog", "/skills", "/context"]


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(st.one_of(st.tuples(st.just("enqueue"), st.sampled_from(ITEMS)),
                              st.tuples(st.just("take"), st.just("")),
                              st.tuples(st.just("popAll"), st.just("")),
                              st.tuples(st.just("send"), st.sampled_from(ITEMS)),
                              st.tuples(st.just("work"), st.just(""))), max_size=10),
       cut=st.floats(0, 1), ended=st.booleans())
def test_what_was_typed_while_claude_worked_and_never_reached_it_is_open(
        ops: list[tuple[str, str]], cut: float, ended: bool) -> None:
    """Issue 29: a prompt or slash command typed while Claude worked that
    never reached Claude: still queued when the transcript ends, or taken
    back to the input box (`popAll`) and not sent since. Generated: queue
    operations as Claude Code writes them (format-updates.md: enqueue,
    dequeue / remove, popAll), prompts and commands sent, Claude's work
    between them, the file read in two hook runs split anywhere. The oracle
    replays the queue from the JSON: what is in it at the end, and what
    popAll took back that no later prompt or queue sent; each is an open
    thread ("never sent", a command "never run"), and nothing else is."""
    t = Transcript()
    t.prompt("check the tests again")
    for kind, item in ops:
        if kind == "enqueue":
            t.raw({"type": "queue-operation", "operation": "enqueue", "content": item})
        elif kind == "take":
            t.raw({"type": "queue-operation", "operation": "dequeue"})
        elif kind == "popAll":
            t.raw({"type": "queue-operation", "operation": "popAll"})
        elif kind == "send":
            if item.startswith("/"):
                t.slash(item[1:], "")
            else:
                t.prompt(item)
        else:
            t.bash("make test", "ok all passed")
    t.say("All tests pass.")
    # The oracle: the queue replayed from the JSON.
    queue: list[str] = []
    back: list[str] = []
    for line in t.lines:
        if line["type"] == "queue-operation":
            op = line["operation"]
            if op == "enqueue":
                back = [b for b in back if b != line["content"]]
                queue.append(line["content"])
            elif op == "dequeue" and queue:
                queue.pop(0)
            elif op == "popAll":
                back += queue
                queue = []
        elif line["type"] == "user" and isinstance(line["message"]["content"], str):
            said = line["message"]["content"]
            name = re.search(r"<command-name>(/\S+)</command-name>", said)
            back = [b for b in back if b != (name.group(1) if name else said)]
    unsent = back[-5:] + queue
    raw = t.encoded()
    at = int(cut * len(raw))
    state = SessionState(session_id=t.sid, project="app", fold=fold(
        fold(Fold(), decode_lines(raw[:at])), decode_lines(raw[at:])),
        status="ended" if ended else "active")
    note = render(state)
    when = "never" if ended else "not yet"  # (while it is active, it may still be sent)
    shown = re.findall(rf"^- \[ \] (.*) \(typed while Claude worked; {when} (sent|run)\)$",
                       note, re.M)
    assert sorted(shown) == sorted(
        (u, "run" if u.startswith("/") else "sent") for u in unsent), note
