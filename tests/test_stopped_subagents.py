"""Review 19 #6: a subagent the user stopped at work is not "denied".

Claude Code answers a Task the user stopped with the same words as one the
user refused before it began ("The user doesn't want to proceed…"). One whose
agent had already made calls (its streamed `progress` lines show them) was
stopped after them: the story and the Subagents section say so, with the
number of its calls; one that made none is still "denied by the user".
Checked on every corpus session and on generated sessions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, json_objects, main_files
from test_headlines import Transcript, phrase

REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
           "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
           "you are doing and wait for the user to tell you how to proceed.")


def _stopped_tasks(main: Path) -> list[tuple[str, str, int]]:
    """(type, description, calls its agent streamed) of each Task or Agent
    call of the main file the user refused, from the JSON."""
    tasks: dict[str, tuple[str, str]] = {}
    streamed: dict[str, set[str]] = {}
    out = []
    for o in json_objects(main):
        if o.get("type") == "progress":
            inner = ((o.get("data") or {}).get("message") or {}).get("message") or {}
            content = inner.get("content") if isinstance(inner, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    streamed.setdefault(str(o.get("parentToolUseID")), set()).add(str(b.get("id")))
            continue
        content = (o.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            inp = b.get("input") if isinstance(b.get("input"), dict) else {}
            if b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent"):
                tasks[str(b.get("id"))] = (str(inp.get("subagent_type") or "general-purpose"),
                                           str(inp.get("description") or ""))
            if b.get("type") == "tool_result" and str(b.get("tool_use_id")) in tasks \
                    and "The user doesn't want to proceed" in str(b.get("content")):
                kind, desc = tasks[str(b.get("tool_use_id"))]
                out.append((kind, desc, len(streamed.get(str(b.get("tool_use_id")), ()))))
    return out


def _told(calls: int) -> str:
    return f"stopped by the user after {calls} call{'s' if calls != 1 else ''}" if calls \
        else "denied by the user"


@pytest.mark.corpus
def test_every_corpus_subagent_the_user_stopped_is_told_so(tmp_path: Path) -> None:
    """Corpus, every session through `vv backfill`: each refused Task whose
    agent streamed calls is told "stopped by the user after N calls" (N from
    the JSON) in the story, never "denied"; one with none, "denied"."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {frontmatter(n).get("session_id"): n for n in env.all_notes().values()
             if "\ntype: session\n" in n}
    stopped = 0
    for main in main_files():
        found = _stopped_tasks(main)
        if not found:
            continue
        sid = next((o["sessionId"] for o in json_objects(main) if o.get("sessionId")), None)
        note = notes[sid]
        for kind, desc, calls in found:
            lines = [ln for ln in note.splitlines()
                     if f"Delegated to subagent *{kind}*: {desc}" in ln]
            assert lines and all(ln.endswith(f"— {_told(calls)}") for ln in lines), \
                (main, desc, calls, lines)
            stopped += calls > 0
    assert stopped >= 1, stopped  # (063071b3's "Find simplify findings 10-12")


@settings(max_examples=examples(25, 150), deadline=None)
@given(desc=phrase, calls=st.integers(0, 3), kind=st.sampled_from(["Explore", "Bash"]))
def test_a_subagent_stopped_at_work_is_told_with_its_calls(
        tmp_path_factory: Any, desc: str, calls: int, kind: str) -> None:
    """A Task whose agent streamed `calls` calls before the user's refusal:
    the story's line and the Subagents section say it was stopped after them
    (or, with none, denied)."""
    t = Transcript()
    t.prompt("look into it")
    desc = desc.capitalize()
    t.raw({"type": "assistant", "message": {
        "id": "msg_task", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_task", "name": "Task",
                     "input": {"description": desc, "subagent_type": kind, "prompt": "go"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}})
    for n in range(calls):
        t.raw({"type": "progress", "parentToolUseID": "toolu_task", "toolUseID": "toolu_task",
               "data": {"type": "agent_progress", "agentId": "a1b2c3d4", "prompt": "go",
                        "message": {"type": "assistant", "timestamp": "2026-03-01T10:00:30.000Z",
                                    "message": {
                                        "id": f"msg_a{n}", "role": "assistant",
                                        "model": "claude-sonnet-4-5", "type": "message",
                                        "content": [{"type": "tool_use", "id": f"toolu_a{n}",
                                                     "name": "Bash",
                                                     "input": {"command": f"ls {n}"}}],
                                        "usage": {"input_tokens": 1, "output_tokens": 1}}}}})
    t.raw({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_task", "is_error": True,
         "content": REFUSED}]}, "toolUseResult": f"Error: {REFUSED}"})
    t.raw({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    t.prompt("never mind")
    t.say("OK.")
    note = t.note(tmp_path_factory, "test_a_subagent_stopped_at_work_is_told_with_its_calls")
    lines = [ln for ln in note.splitlines() if f"Delegated to subagent *{kind}*: {desc}" in ln]
    assert lines and all(ln.endswith(f"— {_told(calls)}") for ln in lines), note
    section = note.split("\n## Subagents\n", 1)[1].split("\n## ", 1)[0]
    assert ("stopped by the user" in section) == (calls > 0), section
    assert ("denied by the user" in section) == (calls == 0), section
