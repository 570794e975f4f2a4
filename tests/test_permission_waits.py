"""Issue 29 (F3): "Claude worked" leaves out the time a command waited for
the user's permission, whether the user granted it or refused.

Each generated session (a client writing `bash_progress` lines, as 2.1.17 to
2.1.59 do) has turns of shell commands: each called, then begun at once or
held by a permission prompt for some seconds (its first progress line's
`elapsedTimeSeconds` says when it began), or refused after some seconds, then
run for some seconds; Claude thinks between calls; some turns end with the
client's `turn_duration`, which counts the waits in. The oracle is that JSON:
each turn's span from its prompt to its last entry, less, per command, the
time from its call to when it began (its first progress line's time less its
elapsed seconds) or to a refusal's result.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, Transcript, examples, frontmatter, in_process, json_objects

SID = "5e55a0b1-0000-4000-8000-0000000000f3"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
           "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
           "you are doing and wait for the user to tell you how to proceed.")

command_of = st.fixed_dictionaries({
    "think_ms": st.integers(300, 90_000),  # before the call
    "wait": st.sampled_from(["none", "granted", "refused"]),
    "wait_ms": st.integers(5_000, 250_000),
    "run_ms": st.integers(100, 60_000)})
turn_of = st.fixed_dictionaries({
    "pause_min": st.integers(1, 30), "commands": st.lists(command_of, min_size=1, max_size=4),
    "answer_ms": st.integers(500, 30_000), "timed": st.booleans()})


def session(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    transcript = Transcript(SID, "2.1.50", "default")
    at = START

    def add(kind: str, **fields: Any) -> None:  # (a line at the time reached)
        transcript.add(kind, at, **fields)

    for t, turn in enumerate(turns):
        at += timedelta(minutes=turn["pause_min"])
        began = at
        add("user", message={"role": "user", "content": f"step {t} please"})
        for c, cmd in enumerate(turn["commands"]):
            at += timedelta(milliseconds=cmd["think_ms"])
            tid = f"toolu_{t}_{c}"
            add("assistant", message={
                "id": f"msg_{t}_{c}", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                             "input": {"command": f"make step{c}"}}],
                "usage": {"input_tokens": 1, "output_tokens": 1}})
            if cmd["wait"] == "refused":
                at += timedelta(milliseconds=cmd["wait_ms"])
                add("user", message={"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tid, "is_error": True,
                     "content": REFUSED}]}, toolUseResult="Error: " + REFUSED)
                continue
            # (held by a prompt, or begun within a fraction of a second)
            at += timedelta(milliseconds=cmd["wait_ms"] if cmd["wait"] == "granted" else 200)
            started = at
            for second in range(2, cmd["run_ms"] // 1000 + 1):  # a line a second from 2 s on
                at = started + timedelta(seconds=second)
                add("progress", parentToolUseID=tid, toolUseID=tid,
                    data={"type": "bash_progress", "output": "", "fullOutput": "",
                          "elapsedTimeSeconds": second, "totalLines": 0})
            at = started + timedelta(milliseconds=cmd["run_ms"])
            add("user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": "done"}]},
                toolUseResult={"stdout": "done", "stderr": "", "interrupted": False})
        at += timedelta(milliseconds=turn["answer_ms"])
        add("assistant", message={"id": f"msg_{t}", "role": "assistant",
                                  "model": "claude-sonnet-4-5",
                                  "content": [{"type": "text", "text": f"Step {t} done."}],
                                  "usage": {"input_tokens": 1, "output_tokens": 1}})
        if turn["timed"]:  # the client's time of the turn: the waits counted in
            add("system", subtype="turn_duration", isMeta=False,
                durationMs=int((at - began).total_seconds() * 1000))
    return transcript.lines


def _ms(ts: str) -> int:
    return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def worked_ms(lines: list[dict[str, Any]]) -> int:
    """Claude's working time from the JSON: each turn's span less the waits."""
    total = 0
    turn_from = last = 0
    called: dict[str, int] = {}
    begun: set[str] = set()
    waits = 0
    for o in lines:
        at = _ms(o["timestamp"])
        msg = o.get("message") or {}
        content = msg.get("content")
        if o["type"] == "user" and isinstance(content, str):  # a prompt: a turn begins
            total += last - turn_from - waits if turn_from else 0
            turn_from, waits = at, 0
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_use":
                called[b["id"]] = at
            elif b.get("type") == "tool_result" and b.get("is_error") \
                    and str(b.get("content")).startswith("The user doesn't want to proceed"):
                waits += at - called[b["tool_use_id"]]
            elif b.get("type") == "tool_result" and begun and b["tool_use_id"] not in begun \
                    and at - called[b["tool_use_id"]] > 3_500:
                # No progress line from a client that has shown it writes one
                # by then: it ran under that, and waited for the user the rest.
                waits += at - called[b["tool_use_id"]]
        data = o.get("data") or {}
        tid = o.get("parentToolUseID")
        if data.get("type") == "bash_progress" and tid not in begun:
            begun.add(tid)
            began = at - int(data["elapsedTimeSeconds"] * 1000)
            if began - called[tid] > 1000:  # held, not begun as it was called
                waits += began - called[tid]
        last = at
    return total + (last - turn_from - waits)


@settings(max_examples=examples(6, 30), deadline=None)
@given(turns=st.lists(turn_of, min_size=1, max_size=3))
def test_claude_worked_leaves_out_permission_waits(tmp_path_factory: Any,
                                                   turns: list[dict[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("waits"))
    env.here = in_process("permission waits")
    lines = session(turns)
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert frontmatter(note)["active_minutes"] == (worked_ms(lines) + 30_000) // 60_000, note


def _prompt(o: dict[str, Any]) -> bool:
    """Typed words (a slash command or anything else is left out: a turn then
    reads longer, and the bound below looser)."""
    if o.get("type") != "user" or o.get("isMeta") or o.get("isSidechain"):
        return False
    content = (o.get("message") or {}).get("content")
    if isinstance(content, str):
        return not content.lstrip().startswith("<")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "text" for b in content) and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def worked_bound_ms(objs: list[dict[str, Any]]) -> tuple[int, int]:
    """The most Claude can have worked, from the JSON of a file whose client
    writes progress lines, and the waits taken out: each turn's span (its
    prompt to its latest entry) less each command's wait for the user (the
    time from its call to when it began, by its first progress line; the
    whole time to its result where it printed none and took over 3.5 s, a
    line coming by then; a refusal's)."""
    called: dict[str, int] = {}
    begun: dict[str, int] = {}
    shell: set[str] = set()
    spans = waits = 0
    turn_from = latest = 0
    for o in objs:
        if o.get("isSidechain") or not isinstance(o.get("timestamp"), str):
            continue
        at = _ms(o["timestamp"])
        if _prompt(o) or not turn_from:  # (the file's first line: a turn under way)
            spans += latest - turn_from if turn_from else 0
            turn_from = latest = at
        latest = max(latest, at)
        for b in (o.get("message") or {}).get("content") or []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                called[str(b.get("id"))] = at
                if b.get("name") == "Bash":
                    shell.add(str(b.get("id")))
            elif b.get("type") == "tool_result" and turn_from:
                tid = str(b.get("tool_use_id"))
                if tid not in called:
                    continue
                refused = b.get("is_error") and "doesn't want to proceed" in str(b.get("content"))
                unseen = tid in shell and begun and tid not in begun and at - called[tid] > 3_500
                if refused or unseen:
                    waits += at - called[tid]
        data = o.get("data") or {}
        tid = str(o.get("parentToolUseID"))
        if isinstance(data, dict) and data.get("type") == "bash_progress" \
                and tid in called and tid not in begun and turn_from:
            began = at - int(float(data.get("elapsedTimeSeconds") or 0) * 1000)
            begun[tid] = began
            waits += max(0, began - called[tid] - 1000)
    if turn_from:
        spans += latest - turn_from
    return spans - waits, waits


@pytest.mark.corpus
def test_no_corpus_session_counts_permission_waits_as_work(tmp_path: Path) -> None:
    """Every corpus session whose client writes progress lines: Claude worked
    at most its turns' spans less its commands' waits for the user."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    checked = held = 0
    for path in sorted(CORPUS.rglob("*.jsonl")):
        if path.parent.name == "subagents" or path.name.startswith("agent-"):
            continue
        objs = json_objects(path)
        if not any(isinstance(o.get("data"), dict) and o["data"].get("type") == "bash_progress"
                   for o in objs):
            continue
        sid = next(str(o["sessionId"]) for o in objs if o.get("sessionId"))
        bound, waits = worked_bound_ms(objs)
        worked = frontmatter(notes[sid])["active_minutes"]
        assert isinstance(worked, int) and worked <= (bound + 30_000) // 60_000, (sid, worked, bound, waits)
        checked += 1
        held += waits > 60_000
    assert checked >= 3 and held >= 1
