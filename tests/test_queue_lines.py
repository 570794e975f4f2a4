"""Review 19, finding 1: Claude Code 2.0.x writes a `queue-operation` pair
(enqueue, dequeue) stamped with the prompt's own time before every prompt.
Those lines are not Claude's work: the pause before them (the user reading
and typing) must not extend the turn before. A queue line that comes while
Claude works (a background task's notification) is inside the turn, and the
turn's time runs on through it.

Generated sessions of untimed turns (no `turn_duration`, as 2.0.x): each
prompt with or without its queue pair, reading pauses under 5 minutes
between turns, and queue lines in the middle of some turns. The oracle is
each turn's span from its prompt to its last entry (no waits for the user in
these turns), summed; the note must say it rounded to the nearest minute.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from vibe_vault.entries import decode_line
from vibe_vault.fold import active, fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

SID = "7acd0000-0000-4000-8000-000000000001"
START = datetime(2025, 11, 17, 23, 50, 6, tzinfo=UTC)

# A turn: Claude's steps (seconds after the last), whether the prompt has its
# queue pair, the seconds the user read before the next prompt, and the step
# after which a queue line came mid-turn (-1: none).
turn = st.tuples(st.lists(st.integers(1, 120), min_size=1, max_size=5), st.booleans(),
                 st.integers(1, 290), st.integers(-1, 4))


def stamp(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session(turns: list[tuple[list[int], bool, int, int]]) -> tuple[list[dict[str, Any]], int]:
    base = {"sessionId": SID, "cwd": "/work/app", "version": "2.0.42"}
    lines: list[dict[str, Any]] = []
    at, worked_ms = START, 0
    for n, (steps, queued, reading, mid) in enumerate(turns):
        if queued:
            lines.append({"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
                          "timestamp": stamp(at - timedelta(milliseconds=2)),
                          # (2.0.42 writes the prompt's content blocks)
                          "content": [{"type": "text", "text": f"step {n} please"}]})
            lines.append({"type": "queue-operation", "operation": "dequeue", "sessionId": SID,
                          "timestamp": stamp(at - timedelta(milliseconds=1))})
        lines.append({**base, "type": "user", "uuid": f"u{n}", "timestamp": stamp(at),
                      "message": {"role": "user", "content": f"step {n} please"}})
        began = at
        for k, seconds in enumerate(steps):
            if k == mid:  # a notification queued while Claude works, taken off again
                lines.append({"type": "queue-operation", "operation": "enqueue",
                              "sessionId": SID, "timestamp": stamp(at + timedelta(seconds=0.5)),
                              "content": "<task-notification>done</task-notification>"})
                lines.append({"type": "queue-operation", "operation": "remove",
                              "sessionId": SID, "timestamp": stamp(at + timedelta(seconds=0.6))})
            at += timedelta(seconds=seconds)
            lines.append({**base, "type": "assistant", "uuid": f"a{n}-{k}",
                          "timestamp": stamp(at), "message": {
                              "id": f"msg_{n}_{k}", "role": "assistant",
                              "model": "claude-sonnet-4-5",
                              "content": [{"type": "text", "text": f"Step {n}.{k} done."}],
                              "usage": {"input_tokens": 1, "output_tokens": 1}}})
        worked_ms += round((at - began).total_seconds() * 1000)
        at += timedelta(seconds=reading)
    return lines, worked_ms


@settings(max_examples=examples(80, 300), deadline=None)
@given(turns=st.lists(turn, min_size=1, max_size=6))
def test_queue_lines_before_a_prompt_are_not_claudes_time(
        turns: list[tuple[list[int], bool, int, int]]) -> None:
    lines, worked_ms = session(turns)
    encoded = [json.dumps(x).encode() for x in lines]
    facts = fold(Fold(), (decode_line(x) for x in encoded))
    assert active.active_ms(facts) == worked_ms, (worked_ms, active.active_ms(facts))
    # Read in two pieces (a hook's reads): the same.
    for cut in (1, len(encoded) // 2, len(encoded) - 1):
        pieces = fold(fold(Fold(), (decode_line(x) for x in encoded[:cut])),
                      (decode_line(x) for x in encoded[cut:]))
        assert active.active_ms(pieces) == worked_ms, (cut, worked_ms)
    note = render(SessionState(session_id=SID, project="app", fold=facts))
    assert frontmatter(note)["active_minutes"] == (worked_ms + 30_000) // 60_000
