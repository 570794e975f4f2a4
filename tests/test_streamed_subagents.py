"""Review 15, finding 3: a subagent Claude Code wrote no file for is told by
what its streamed entries show.

Claude Code 2.0-2.1 streams a subagent's entries into the main transcript
(`progress` lines, `data.type == "agent_progress"`), and may or may not write
the agent's own file as well. Each generated session has a Task call, the
subagent's tool calls (Bash commands that pass or fail, reads, searches) in
one of the three layouts (its file, progress lines only, both), finished (a
result naming the agent) or not. The oracle is the JSON written here: the
tool_use blocks of the main file and of the subagent (its file's, or else
its progress lines'), each counted once, and its Bash calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import (
    Env,
    blocks,
    examples,
    frontmatter,
    in_process,
    json_objects,
    main_files,
    session_files,
)
from test_headlines import Transcript, phrase

AGENT = "a5cbd18"
TOOLS = st.sampled_from(["Bash-ok", "Bash-fail", "Read", "Grep"])


def streamed(t: Transcript, task_id: str, inner: dict[str, Any], agent: str) -> None:
    """One progress line carrying one of the subagent's entries."""
    t.raw({"type": "progress", "parentToolUseID": task_id, "toolUseID": "agent_msg_x",
           "data": {"type": "agent_progress", "agentId": agent, "prompt": "",
                    "normalizedMessages": [], "message": inner}})


def subagent_entries(steps: list[str], sid: str) -> list[dict[str, Any]]:
    """The subagent's entries (prompt, then one call and its result per step),
    in the shape its own file and its progress lines both carry."""
    out: list[dict[str, Any]] = [{"type": "user", "uuid": f"s-{sid[:4]}-p",
                                  "timestamp": "2026-03-01T10:00:30.000Z",
                                  "message": {"role": "user", "content": "Review the change"}}]
    for n, step in enumerate(steps):
        tid = f"toolu_sub{n:03d}"
        tool = step.split("-")[0]
        inp = ({"command": f"make check{n}", "description": f"check {n}"} if tool == "Bash"
               else {"file_path": f"/work/app/f{n}.py"} if tool == "Read" else {"pattern": "x"})
        ts = f"2026-03-01T10:01:{n:02d}.000Z"
        out.append({"type": "assistant", "uuid": f"s-a{n}", "timestamp": ts, "message": {
            "id": f"msg_sub{n}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tid, "name": tool, "input": inp}],
            "usage": {"input_tokens": 2, "output_tokens": 3}}})
        failed = step == "Bash-fail"
        out.append({"type": "user", "uuid": f"s-u{n}", "timestamp": ts, "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                         "is_error": failed,
                                         "content": "Exit code 2\nboom" if failed else "fine"}]}})
    return out


def session(steps: list[str], layout: str, finished: bool, main_bash: int, ask: str,
            ) -> tuple[Transcript, list[dict[str, Any]]]:
    t = Transcript()
    t.prompt(ask)
    for n in range(main_bash):
        t.bash(f"ls dir{n}", "a\nb")
    task_id = "toolu_task0001"
    t.lines.append({**t._base("assistant"), "message": {
        "id": "msg_task", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": task_id, "name": "Task", "input": {
            "description": "Review the change", "subagent_type": "code-reviewer",
            "prompt": "Review the change"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}})
    inner = subagent_entries(steps, t.sid)
    if layout in ("progress", "both"):
        for entry in inner:
            streamed(t, task_id, entry, AGENT)
    if finished:
        t.lines.append({**t._base("user"), "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": task_id, "content": "Looks good."}]},
            "toolUseResult": {"status": "completed", "agentId": AGENT,
                              "totalToolUseCount": len(steps), "totalDurationMs": 5000,
                              "totalTokens": 100, "content": []}})
        t.say("The review says it looks good.")
    own = [{**e, "sessionId": t.sid, "agentId": AGENT, "isSidechain": True,
            "cwd": t.cwd, "parentUuid": None} for e in inner] if layout in ("file", "both") else []
    return t, own


def oracle(main: list[dict[str, Any]], own: list[dict[str, Any]]) -> tuple[int, int]:
    """Tool calls and Bash calls, each tool_use block once: the main file's
    own, and the subagent's from its file or, without one, its progress lines."""
    calls = bash = 0
    streamed_blocks: list[dict[str, Any]] = []
    for o in main:
        for b in blocks(o):
            if b.get("type") == "tool_use":
                calls += 1
                bash += b.get("name") == "Bash"
        data = o.get("data")
        if o.get("type") == "progress" and isinstance(data, dict) \
                and data.get("type") == "agent_progress":
            streamed_blocks.extend(b for b in blocks(data["message"])
                                   if b.get("type") == "tool_use")
    sub = [b for o in own for b in blocks(o) if b.get("type") == "tool_use"] \
        if own else streamed_blocks
    return calls + len(sub), bash + sum(b.get("name") == "Bash" for b in sub)


@settings(max_examples=examples(10, 25), deadline=None)
@given(steps=st.lists(TOOLS, min_size=1, max_size=8),
       layout=st.sampled_from(["file", "progress", "both"]), finished=st.booleans(),
       main_bash=st.integers(0, 3), ask=phrase)
def test_a_subagents_calls_count_once_whatever_its_layout(
        tmp_path_factory: Any, steps: list[str], layout: str, finished: bool,
        main_bash: int, ask: str) -> None:
    env = Env(tmp_path_factory.mktemp("streamed"))
    env.here = in_process("streamed subagents")
    t, own = session(steps, layout, finished, main_bash, ask)
    folder = env.claude / "projects" / "-work-app"
    t.write(folder / f"{t.sid}.jsonl")
    if own:
        agent_file = folder / t.sid / "subagents" / f"agent-{AGENT}.jsonl"
        agent_file.parent.mkdir(parents=True)
        agent_file.write_text("".join(json.dumps(e) + "\n" for e in own))
        # as Claude Code 2.1 writes beside it: what a Task with no result is matched by
        agent_file.with_suffix(".meta.json").write_text(json.dumps(
            {"agentType": "code-reviewer", "description": "Review the change"}))
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    fm = frontmatter(note)
    calls, bash = oracle(t.lines, own)
    assert fm["tool_calls"] == calls, note
    assert fm["commands"] == bash, note
    sub_calls = len(steps)
    line = next(x for x in note.splitlines() if x.startswith("- *code-reviewer*"))
    assert f"({sub_calls} tool call{'' if sub_calls == 1 else 's'}" in line, line
    assert "(1 tool calls" not in line, line
    sub_bash = steps.count("Bash-ok") + steps.count("Bash-fail")
    if sub_bash:
        assert f"{sub_bash} shell command" in line, line
    if "Bash-fail" in steps:
        assert re.search(r"`make check\d+` — failed", note), note
    if not finished:
        assert "unfinished" in line


def _streamed_calls(objs: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for o in objs:
        data = o.get("data")
        if o.get("type") == "progress" and isinstance(data, dict) \
                and data.get("type") == "agent_progress" and isinstance(data.get("message"), dict):
            agent = str(data.get("agentId") or "?")
            out[agent] = out.get(agent, 0) + sum(
                1 for b in blocks(data["message"]) if b.get("type") == "tool_use")
    return out


@pytest.mark.corpus
def test_every_corpus_subagent_with_streamed_calls_is_counted_by_them(tmp_path: Path) -> None:
    """Corpus: every session whose subagents stream their entries; the note's
    tool_calls is the main file's tool_use blocks plus, per subagent, its
    file's or else its progress lines' (from the JSON), and no subagent with
    streamed calls is said to have made 0."""
    env = Env(tmp_path)
    checked = 0
    for path in main_files():
        objs = json_objects(path)
        streamed_by = _streamed_calls(objs)
        if not any(streamed_by.values()):
            continue
        files = [p for p in session_files(path)]
        with_file: dict[str, int] = {}
        for p in files:
            sub = json_objects(p)
            agent = next((str(o["agentId"]) for o in sub if o.get("agentId")), p.stem[6:])
            with_file[agent] = sum(1 for o in sub if o.get("type") == "assistant"
                                   for b in blocks(o) if b.get("type") == "tool_use")
        main_calls = sum(1 for o in objs if o.get("type") == "assistant"
                         and not o.get("isSidechain")
                         for b in blocks(o) if b.get("type") == "tool_use")
        side_calls = sum(1 for o in objs if o.get("type") == "assistant" and o.get("isSidechain")
                         for b in blocks(o) if b.get("type") == "tool_use")
        expected = main_calls + side_calls + sum(with_file.values()) + sum(
            n for agent, n in streamed_by.items() if agent not in with_file)
        sid = next(str(o["sessionId"]) for o in objs if o.get("sessionId"))
        home = env.claude / "projects" / f"-c{checked}"
        home.mkdir(parents=True)
        (home / f"{sid}.jsonl").write_bytes(path.read_bytes())
        for p in files:
            dst = home / sid / "subagents" / p.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(p.read_bytes())
        checked += 1
        r = env.vv("backfill", str(home))
        assert r.returncode == 0, r.stderr
        note = next(n for n in env.notes().values() if f"session_id: {sid}" in n)
        assert frontmatter(note)["tool_calls"] == expected, (path, expected)
        assert "(0 tool calls" not in note, path
    assert checked >= 2  # the corpus has sessions of this kind


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(TOOLS, min_size=1, max_size=6), main_bash=st.integers(0, 3),
       ask=phrase)
def test_a_read_only_overview_through_a_subagent_is_research(
        steps: list[str], main_bash: int, ask: str) -> None:
    """Tags say what was done, by any agent: a subagent that read or searched
    (the JSON's Read/Grep calls), no file written by anyone, is research,
    whatever shell commands ran beside it; only commands and nothing read is
    operations."""
    from test_headlines import SID
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.render import render
    from vibe_vault.state import Fold, SessionState

    t, _ = session(steps, "progress", True, main_bash, ask)
    state = SessionState(session_id=SID, project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    tags = str(frontmatter(render(state))["tags"])
    read = any(s in ("Read", "Grep") for s in steps)
    assert ("research" in tags) == read, tags
    assert ("operations" in tags) == (not read), tags
