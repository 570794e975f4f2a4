"""Issue 29 (F4): a command called while a subagent works, whose result
Claude Code delivers with the subagent's (after it), has no time of its own
in the transcript: the note tells none rather than the subagent's (2beb2d34:
`gh auth status` "ok, 32s" beside an Explore subagent; it ran in under two
seconds, no progress line came for it).

Each generated turn calls a subagent, then commands beside it, some answered
before the subagent's result and some after it (held back), on a client in
any permission mode, writing progress lines or not. The oracle is the JSON:
a command whose call came while a subagent call had no result yet, and whose
result came after that subagent's, shows no time; one answered before shows
the time from its call to its result where the mode asks no permission.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import (
    CORPUS,
    Env,
    Transcript,
    examples,
    frontmatter,
    in_process,
    json_objects,
    main_files,
)

SID = "5e55a0b1-0000-4000-8000-0000000000f4"
START = datetime(2026, 2, 26, 2, 27, tzinfo=UTC)
command_of = st.fixed_dictionaries({"held": st.booleans(), "ms": st.integers(100, 3_000)})


def session(commands: list[dict[str, Any]], agent_ms: int, mode: str) -> list[dict[str, Any]]:
    transcript = Transcript(SID, "2.1.58", mode)
    add = transcript.add

    def call(tid: str, when: datetime, name: str, inp: dict[str, Any]) -> None:
        add("assistant", when, message={
            "id": f"msg_{tid}", "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})

    def result(tid: str, when: datetime, **more: Any) -> None:
        add("user", when, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": "done"}]}, **more)

    at = START
    add("user", at, message={"role": "user", "content": "make a pr and look into the logs"})
    at += timedelta(seconds=5)
    call("toolu_task", at, "Task", {"description": "Investigate the logs",
                                     "prompt": "Investigate the logs",
                                     "subagent_type": "Explore"})
    answered = at
    for n, cmd in enumerate(commands):
        at += timedelta(milliseconds=400)
        call(f"toolu_cmd{n}", at, "Bash", {"command": f"git log -{n + 1}",
                                             "description": f"Show log {n}"})
        if not cmd["held"]:
            answered = max(answered, at) + timedelta(milliseconds=cmd["ms"])
            result(f"toolu_cmd{n}", answered,
                   toolUseResult={"stdout": "done", "stderr": "", "interrupted": False})
    done = max(at, answered) + timedelta(milliseconds=agent_ms)
    result("toolu_task", done, toolUseResult={"status": "completed", "content": [],
                                               "totalDurationMs": agent_ms})
    for n, cmd in enumerate(commands):
        if cmd["held"]:
            done += timedelta(milliseconds=100)
            result(f"toolu_cmd{n}", done,
                   toolUseResult={"stdout": "done", "stderr": "", "interrupted": False})
    add("assistant", done + timedelta(seconds=3), message={
        "id": "msg_end", "role": "assistant", "model": "claude-opus-4-6",
        "content": [{"type": "text", "text": "The PR is open."}],
        "usage": {"input_tokens": 1, "output_tokens": 1}})
    return transcript.lines


def held_back(lines: list[dict[str, Any]]) -> dict[str, bool]:
    """Per command (its text): whether its call came while a subagent call
    had no result, and its result after that subagent's, from the JSON."""
    open_agents: set[str] = set()
    beside: dict[str, set[str]] = {}
    text: dict[str, str] = {}
    answered: set[str] = set()
    out: dict[str, bool] = {}
    for o in lines:
        for b in o["message"]["content"] if isinstance(o["message"]["content"], list) else []:
            if b["type"] == "tool_use" and b["name"] == "Task":
                open_agents.add(b["id"])
            elif b["type"] == "tool_use" and b["name"] == "Bash":
                beside[b["id"]], text[b["id"]] = set(open_agents), b["input"]["command"]
            elif b["type"] == "tool_result":
                tid = b["tool_use_id"]
                open_agents.discard(tid)
                answered.add(tid)
                if tid in beside:
                    out[text[tid]] = bool(beside[tid] & answered)
    return out


@settings(max_examples=examples(8, 30), deadline=None)
@given(commands=st.lists(command_of, min_size=1, max_size=3),
       agent_ms=st.integers(5_000, 90_000),
       mode=st.sampled_from(["bypassPermissions", "default", "acceptEdits"]))
def test_a_command_held_back_by_a_subagent_shows_no_time(
        tmp_path_factory: Any, commands: list[dict[str, Any]], agent_ms: int, mode: str) -> None:
    env = Env(tmp_path_factory.mktemp("batched"))
    env.here = in_process("batched results")
    lines = session(commands, agent_ms, mode)
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    for command, held in held_back(lines).items():
        shown = re.search(rf"`{re.escape(command)}` — (ok[^\n]*)", note)
        assert shown is not None, note
        if held:
            assert shown.group(1) == "ok", (command, shown.group(0))


@pytest.mark.corpus
def test_no_corpus_command_held_back_by_a_subagent_shows_a_time(tmp_path: Path) -> None:
    """Every corpus session: a one-line command held back by a subagent (by
    the JSON, as above) is told with no time wherever the note tells it."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    checked = 0
    for path in main_files():
        lines = [o for o in json_objects(path) if isinstance(o.get("message"), dict)
                 and not o.get("isSidechain")]
        for o in lines:
            o["message"].setdefault("content", "")
        sid = next((str(o["sessionId"]) for o in lines if o.get("sessionId")), "")
        if sid not in notes:
            continue
        for command, held in held_back(lines).items():
            if not held or "\n" in command or len(command) > 80:
                continue
            told = re.findall(rf"`{re.escape(command)}` — ([^\n]*)", notes[sid])
            assert told and all(not re.match(r"\w+, \d", t) for t in told), (sid, command, told)
            checked += 1
    assert checked >= 2
