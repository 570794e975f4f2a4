"""Review 17 #2: "Claude worked" counts the time Claude waited on its
subagents. Claude Code 2.1.114's `turn_duration` leaves out the time a turn
waited on foreground subagents (ef958aa1: 6 min said for 21 min of work
beside a 13-minute subagent); other clients count it in.

Each generated turn has subagents called at once or one after another, each
working some seconds, then Claude's answer, and the client's `turn_duration`
with or without the subagents' time. The oracle is that JSON: the time the
turn waited on subagents (each Task from its call to its result, counted
once where they overlap); a `turn_duration` shorter than it left it out, and
the turn's time is then both together, at most the turn's span.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, Transcript, examples, frontmatter, in_process

SID = "5e55a0b1-0000-4000-8000-0000000000a2"
START = datetime(2026, 4, 18, 13, 0, tzinfo=UTC)
turn_of = st.fixed_dictionaries({
    "agents_ms": st.lists(st.integers(5_000, 900_000), min_size=1, max_size=3),
    "parallel": st.booleans(), "own_ms": st.integers(1_000, 240_000),
    "counts_agents": st.booleans(), "pause_min": st.integers(1, 20)})


def session(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    transcript = Transcript(SID, "2.1.114", "acceptEdits")
    add = transcript.add
    at = START

    def call(tid: str, when: datetime) -> None:
        add("assistant", when, message={
            "id": f"msg_{tid}", "role": "assistant", "model": "claude-opus-4-7",
            "content": [{"type": "tool_use", "id": tid, "name": "Agent", "input": {
                "description": f"Research {tid}", "prompt": f"Research {tid}",
                "subagent_type": "general-purpose"}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})

    def result(tid: str, when: datetime, ms: int) -> None:
        add("user", when, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": "Found it."}]},
            toolUseResult={"status": "completed", "totalDurationMs": ms, "content": []})

    for t, turn in enumerate(turns):
        at += timedelta(minutes=turn["pause_min"])
        began = at
        add("user", at, message={"role": "user", "content": f"research round {t}"})
        own = turn["own_ms"] // 2  # Claude's own work before and after the subagents
        at += timedelta(milliseconds=own)
        tids = [f"toolu_{t}_{a}" for a in range(len(turn["agents_ms"]))]
        if turn["parallel"]:
            for tid in tids:
                call(tid, at)
            ends = sorted((at + timedelta(milliseconds=ms), tid, ms)
                          for tid, ms in zip(tids, turn["agents_ms"], strict=True))
            for when, tid, ms in ends:
                result(tid, when, ms)
            at = ends[-1][0]
        else:
            for tid, ms in zip(tids, turn["agents_ms"], strict=True):
                call(tid, at)
                at += timedelta(milliseconds=ms)
                result(tid, at, ms)
        at += timedelta(milliseconds=turn["own_ms"] - own)
        add("assistant", at, message={"id": f"msg_{t}", "role": "assistant",
                                      "model": "claude-opus-4-7",
                                      "content": [{"type": "text", "text": f"Round {t} done."}],
                                      "usage": {"input_tokens": 1, "output_tokens": 1}})
        span = round((at - began).total_seconds() * 1000)
        waited = span - turn["own_ms"]
        add("system", at, subtype="turn_duration", isMeta=False,
            durationMs=span if turn["counts_agents"] else span - waited)
    return transcript.lines


def _ms(ts: str) -> int:
    return round(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def worked_ms(lines: list[dict[str, Any]]) -> int:
    total = 0
    began = agents = until = 0
    called: dict[str, int] = {}
    for o in lines:
        at = _ms(o["timestamp"])
        content = (o.get("message") or {}).get("content")
        if o["type"] == "user" and isinstance(content, str):
            began, agents, until = at, 0, 0
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_use" and b.get("name") in ("Agent", "Task"):
                called[b["id"]] = at
            elif b.get("type") == "tool_result" and b["tool_use_id"] in called:
                since = max(called[b["tool_use_id"]], until)
                agents += max(0, at - since)
                until = max(until, at)
        if o.get("subtype") == "turn_duration":
            held = o["durationMs"]
            total += min(held + agents if held < agents else held, at - began)
    return total


@settings(max_examples=examples(8, 40), deadline=None)
@given(turns=st.lists(turn_of, min_size=1, max_size=3))
def test_claude_worked_counts_the_time_it_waited_on_subagents(
        tmp_path_factory: Any, turns: list[dict[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("agent-waits"))
    env.here = in_process("subagent waits")
    lines = session(turns)
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert frontmatter(note)["active_minutes"] == (worked_ms(lines) + 30_000) // 60_000, note
