"""Issue 29 (F6): a subagent of the older layout (Claude Code 1.0.x: its
entries in the main file, `isSidechain: true`) is told by what its entries
did: its tool calls and its time, whether or not its Task's result is in the
file; a file that opens in a turn begun before it (no request in it) counts
no "0 prompts" and says no request went unanswered, and Claude's work in it
counts as work.

Each generated session has Tasks, each given its own prompt, whose
subagents' chains (the first entry carries the prompt, each later one names
its parent) run one after another or interleaved, each making some tool
calls, its Task's result there or not; the file opens with a prompt or in a
turn under way. The oracle is that JSON: each Task's chain followed from the
entry carrying its prompt, its tool_use blocks counted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, in_process, json_objects

SID = "df749439-0000-4000-8000-00000000f006"
CWD = "/work/app"

# finished: its Task's result is in the file; ended: its own last reply says
# it ended its turn (`stop_reason: end_turn`; else none, or a tool call's).
agent_of = st.fixed_dictionaries({"calls": st.integers(0, 4), "finished": st.booleans(),
                                  "ended": st.sampled_from(["end_turn", None, "tool_use"])})


def session(agents: list[dict[str, Any]], interleaved: bool, opens_with_prompt: bool,
            ) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    clock = [0]

    def add(kind: str, parent: str | None, side: bool, message: dict[str, Any],
            **more: Any) -> str:
        clock[0] += 30
        n = len(lines)
        uuid = f"{SID[:8]}-0000-4000-8000-{n:012d}"
        lines.append({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": side,
                      "sessionId": SID, "cwd": CWD, "version": "1.0.35", "userType": "external",
                      "timestamp": f"2025-07-03T15:{clock[0] // 60:02d}:{clock[0] % 60:02d}.000Z",
                      "message": message, **more})
        return uuid

    def assistant(content: list[dict[str, Any]], n: str) -> dict[str, Any]:
        return {"id": f"msg_{n}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-20250514", "content": content,
                "usage": {"input_tokens": 3, "output_tokens": 5}}

    last = None
    if opens_with_prompt:
        last = add("user", None, False, {"role": "user", "content": "Find why the test fails"})
    tasks = []
    for a, _ in enumerate(agents):
        tid = f"toolu_task{a}"
        prompt = f"Look into part {a} of the failing test and report what you find"
        last = add("assistant", last, False, assistant([{
            "type": "tool_use", "id": tid, "name": "Task",
            "input": {"description": f"Debug part {a}", "prompt": prompt}}], f"t{a}"))
        tasks.append((tid, prompt))
    # Each chain's entries: its prompt, then per call a call and its result,
    # then its summary.
    chains: list[list[tuple[str, dict[str, Any], dict[str, Any]]]] = []
    for a, spec in enumerate(agents):
        steps: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
            ("user", {"role": "user", "content": tasks[a][1]}, {})]
        for c in range(spec["calls"]):
            cid = f"toolu_s{a}_{c}"
            steps.append(("assistant", assistant([{"type": "tool_use", "id": cid, "name": "Read",
                                                  "input": {"file_path": f"/work/app/f{c}.py"}}],
                                                f"s{a}_{c}"), {}))
            steps.append(("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": cid, "content": "x = 1"}]}, {}))
        last_reply = assistant([{"type": "text", "text": f"Part {a} is fine."}], f"s{a}_end")
        if spec.get("ended"):
            last_reply["stop_reason"] = spec["ended"]
        steps.append(("assistant", last_reply, {}))
        chains.append(steps)
    parents: list[str | None] = [None] * len(chains)
    order = ([a for k in range(max(map(len, chains))) for a in range(len(chains))
              if k < len(chains[a])] if interleaved
             else [a for a in range(len(chains)) for _ in chains[a]])
    taken = [0] * len(chains)
    for a in order:
        kind, message, more = chains[a][taken[a]]
        taken[a] += 1
        parents[a] = add(kind, parents[a], True, message, **more)
    for a, spec in enumerate(agents):
        if spec["finished"]:
            add("user", None, False, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tasks[a][0],
                 "content": [{"type": "text", "text": f"Part {a} is fine."}]}]},
                toolUseResult={"content": [{"type": "text", "text": f"Part {a} is fine."}],
                               "totalDurationMs": 1000})
    return lines


def chain_calls(lines: list[dict[str, Any]]) -> list[int]:
    """Per Task call (in order), the tool_use blocks of the subagent chain
    that opens with its prompt (followed by parentUuid), from the JSON."""
    prompts = [b["input"]["prompt"] for o in lines if o["type"] == "assistant"
               and not o.get("isSidechain") for b in o["message"]["content"]
               if b.get("type") == "tool_use" and b.get("name") == "Task"]
    side = [o for o in lines if o.get("isSidechain")]
    out = []
    for prompt in prompts:
        members = {o["uuid"] for o in side if o["type"] == "user"
                   and o["message"]["content"] == prompt}
        for o in side:  # (a chain's entries come after their parents)
            if o.get("parentUuid") in members:
                members.add(o["uuid"])
        out.append(sum(1 for o in side if o["uuid"] in members and o["type"] == "assistant"
                       for b in o["message"]["content"] if b.get("type") == "tool_use"))
    return out


def unfinished(lines: list[dict[str, Any]]) -> list[bool]:
    """Per Task call (in order): no tool_result of it in the file, and the
    last assistant entry of its chain (followed from the entry carrying its
    prompt) has no `stop_reason: end_turn`."""
    tasks = [(b["id"], b["input"]["prompt"]) for o in lines if o["type"] == "assistant"
             and not o.get("isSidechain") for b in o["message"]["content"]
             if b.get("type") == "tool_use" and b.get("name") == "Task"]
    answered = {b.get("tool_use_id") for o in lines if o["type"] == "user"
                and isinstance(o["message"]["content"], list) for b in o["message"]["content"]
                if b.get("type") == "tool_result"}
    side = [o for o in lines if o.get("isSidechain")]
    out = []
    for tid, prompt in tasks:
        members = {o["uuid"] for o in side if o["type"] == "user"
                   and o["message"]["content"] == prompt}
        for o in side:
            if o.get("parentUuid") in members:
                members.add(o["uuid"])
        replies = [o for o in side if o["uuid"] in members and o["type"] == "assistant"]
        ended = bool(replies) and replies[-1]["message"].get("stop_reason") == "end_turn"
        out.append(tid not in answered and not ended)
    return out


@settings(max_examples=examples(10, 40), deadline=None)
@given(agents=st.lists(agent_of, min_size=1, max_size=3), interleaved=st.booleans(),
       opens_with_prompt=st.booleans())
def test_inline_subagents_are_told_by_their_entries(
        tmp_path_factory: Any, agents: list[dict[str, Any]], interleaved: bool,
        opens_with_prompt: bool) -> None:
    env = Env(tmp_path_factory.mktemp("inline"))
    env.here = in_process("inline subagents")
    lines = session(agents, interleaved, opens_with_prompt)
    env.transcript(SID, [json.dumps(x).encode() for x in lines], folder="-work-app")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    body = note.split("\n## Subagents\n", 1)[1].split("\n\n", 1)[0]
    said = [ln for ln in body.splitlines() if ln.startswith("- *")]
    assert [int(m.group(1)) if (m := re.search(r"\((\d+) tool calls?\b", ln)) else -1
            for ln in said] == chain_calls(lines), (said, chain_calls(lines))
    # Unfinished only where neither its Task's result is in the file nor its
    # chain's last reply ended its turn (review 23 #1), by the JSON.
    assert ["unfinished: no result" in ln for ln in said] == unfinished(lines), (said, lines)
    assert note.count("unfinished (no result)") == sum(unfinished(lines)), note
    summary = str(frontmatter(note)["summary"])
    prompts = sum(1 for o in lines if o["type"] == "user" and not o.get("isSidechain")
                  and isinstance(o["message"]["content"], str))
    assert "0 prompts" not in summary
    if not prompts:
        assert "request got no answer" not in note, note
        # Claude's (and its subagents') work from the file's first line counts.
        assert frontmatter(note)["active_minutes"] == ((len(lines) - 1) * 30 + 30) // 60, note


@pytest.mark.corpus
def test_the_corpus_inline_subagent_is_told_by_its_entries(tmp_path: Path) -> None:
    """sidechain.jsonl (1.0.35, an excerpt: its Task's result, and its
    subagent's entry before the last, are not in it)."""
    path = CORPUS / "iansherr__claude-code-log/test_data/sidechain.jsonl"
    lines = json_objects(path)
    env = Env(tmp_path)
    assert env.vv("backfill", str(path)).returncode == 0
    (note,) = env.notes().values()
    calls = sum(1 for o in lines if o.get("isSidechain") and o.get("type") == "assistant"
                for b in o["message"]["content"] if b.get("type") == "tool_use")
    assert calls == 2 and "(2 tool calls" in note, note
    # Its last entry (line 8) ended its turn with its report: finished, though
    # its Task's result is not in the excerpt (review 23 #1).
    assert lines[-1].get("isSidechain") and lines[-1]["message"]["stop_reason"] == "end_turn"
    assert "unfinished" not in note, note
    assert "request got no answer" not in note and "0 prompts" not in note, note
    assert "Claude worked 0 min" not in note, note
