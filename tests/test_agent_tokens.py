"""Issue 29 (R1): each subagent's "tokens used" counts every message of it,
its final answer (the one its Task's result carries) included, so that the
subagents' figures add up to their share of the model table.

The oracle is the JSON alone: an agent's messages are its own file's, else
its `agent_progress` lines' in the main file, one snapshot per message id
(Claude Code streams one message over several lines: the largest output
counts); its Task result's `usage` is its final message, the same message as
the agent's one with the same input, cache read and cache write counts (the
larger output kept), else a message of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, in_process, json_objects, main_files, session_files
from test_headlines import Transcript

PROMPT_FIELDS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
FIELDS = (*PROMPT_FIELDS, "output_tokens")


def _count(usage: dict[str, Any], field: str) -> int:
    v = usage.get(field)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _progress_message(obj: dict[str, Any]) -> dict[str, Any] | None:
    data = obj.get("data")
    if obj.get("type") != "progress" or not isinstance(data, dict) \
            or data.get("type") != "agent_progress":
        return None
    outer = data.get("message")
    inner = outer.get("message") if isinstance(outer, dict) else None
    if isinstance(outer, dict) and outer.get("type") == "assistant" and isinstance(inner, dict):
        return inner
    return None


def agent_tokens(main: list[dict[str, Any]],
                 files: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Tokens each agent used (by agent id), from the session's JSON:
    `files` holds each agent's own file's objects."""
    messages: dict[str, dict[str, dict[str, int]]] = {}  # agent -> message key -> counts

    def note(agent: str, msg: dict[str, Any], key: object) -> None:
        usage = msg.get("usage")
        if not isinstance(usage, dict) or not key or msg.get("model") == "<synthetic>":
            return
        rec = {f: _count(usage, f) for f in FIELDS}
        mine = messages.setdefault(agent, {})
        old = mine.get(str(key))
        if old is None or rec["output_tokens"] > old["output_tokens"]:
            mine[str(key)] = rec

    for agent, objs in files.items():
        for o in objs:
            msg = o.get("message")
            if o.get("type") == "assistant" and isinstance(msg, dict):
                note(agent, msg, msg.get("id") or o.get("requestId") or o.get("uuid"))
    for o in main:
        inner = _progress_message(o)
        agent = str(o["data"].get("agentId")) if inner is not None else ""
        if inner is not None and agent not in files:
            note(agent, inner, inner.get("id") or o.get("uuid"))
    for n, o in enumerate(main):
        result = o.get("toolUseResult")
        if o.get("type") != "user" or not isinstance(result, dict) \
                or not isinstance(result.get("usage"), dict) or not result.get("agentId"):
            continue
        agent = str(result["agentId"])
        rec = {f: _count(result["usage"], f) for f in FIELDS}
        mine = messages.setdefault(agent, {})
        same = [k for k, r in mine.items() if all(r[f] == rec[f] for f in PROMPT_FIELDS)]
        if same:
            kept = mine[same[-1]]
            kept["output_tokens"] = max(kept["output_tokens"], rec["output_tokens"])
        else:
            mine[f"result {n}"] = rec
    return {agent: sum(sum(r.values()) for r in mine.values())
            for agent, mine in messages.items()}


def said_tokens(line: str) -> str:
    m = re.search(r"[(,] (≥?[\d.]+[kM]?) tokens used[,)]", line)
    return m.group(1) if m else ""


def rounds_to(exact: int, said: str) -> bool:
    """Whether `said` (as a note writes a count: 512, 86k, 1.2M; "≥" before
    it when only the agent's final answer is known) is `exact`."""
    said = said.removeprefix("≥")
    if said.endswith("M"):
        return abs(exact / 1_000_000 - float(said[:-1])) <= 0.05 + 1e-9
    if said.endswith("k"):
        return abs(exact / 1000 - float(said[:-1])) <= 0.5 + 1e-9
    return said == str(exact)


def subagent_lines(note: str) -> list[str]:
    body = note.split("\n## Subagents\n", 1)
    if len(body) < 2:
        return []
    return [ln for ln in body[1].split("\n\n", 1)[0].splitlines() if ln.startswith("- *")]


def task_agents(main: list[dict[str, Any]]) -> list[str]:
    """The agent id each Task call's result names, in the order of the calls
    ("" for a call with no such result)."""
    calls: list[str] = []
    for o in main:
        msg = o.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if o.get("type") != "assistant" or o.get("isSidechain") or not isinstance(content, list):
            continue
        calls.extend(str(b.get("id")) for b in content if isinstance(b, dict)
                     and b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent"))
    named: dict[str, str] = {}
    for o in main:
        result = o.get("toolUseResult")
        msg = o.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(result, dict) and result.get("agentId") and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    named[str(b.get("tool_use_id"))] = str(result["agentId"])
    return [named.get(c, "") for c in calls]


# -- generated sessions ---------------------------------------------------------------

usage_of = st.fixed_dictionaries({
    "input_tokens": st.integers(0, 40), "cache_read_input_tokens": st.integers(0, 300),
    "cache_creation_input_tokens": st.integers(0, 200), "output_tokens": st.integers(1, 90)})
agent_of = st.fixed_dictionaries({
    "messages": st.lists(st.tuples(usage_of, st.integers(1, 3)), min_size=0, max_size=4),
    "final": usage_of, "more_output": st.integers(0, 30),
    "layout": st.sampled_from(["file", "progress", "both"])})


def build(agents: list[dict[str, Any]]) -> tuple[Transcript, dict[str, list[dict[str, Any]]]]:
    """A session whose Tasks each start an agent: its messages streamed over
    1-3 lines each (the output growing), its final answer, and the Task's
    result carrying that answer's usage (its output as large or larger)."""
    t = Transcript()
    t.prompt("Look into the failing build")
    files: dict[str, list[dict[str, Any]]] = {}
    for a, spec in enumerate(agents):
        agent = f"a{a:06x}"
        task_id = f"toolu_task{a:04d}"
        t.raw({"type": "assistant", "message": {
            "id": f"msg_task{a}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": task_id, "name": "Task", "input": {
                "description": f"Look at part {a}", "subagent_type": "Explore",
                "prompt": f"Look at part {a}"}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
        entries: list[dict[str, Any]] = []
        for m, (usage, snapshots) in enumerate(spec["messages"]):
            for s in range(snapshots):  # (the output as it had grown by then)
                out = max(1, usage["output_tokens"] * (s + 1) // snapshots)
                entries.append({"type": "assistant", "uuid": f"{agent}-{m}-{s}",
                                "timestamp": "2026-03-01T10:00:30.000Z", "message": {
                                    "id": f"msg_{agent}_{m}", "role": "assistant",
                                    "model": "claude-haiku-4-5",
                                    "content": [{"type": "text", "text": f"part {m}"}],
                                    "usage": {**usage, "output_tokens": out}}})
        final = {"type": "assistant", "uuid": f"{agent}-final",
                 "timestamp": "2026-03-01T10:00:40.000Z", "message": {
                     "id": f"msg_{agent}_final", "role": "assistant",
                     "model": "claude-haiku-4-5",
                     "content": [{"type": "text", "text": "Found it."}], "usage": spec["final"]}}
        if spec["layout"] in ("progress", "both"):
            for e in entries:  # (the final answer is not streamed: it is the result)
                t.raw({"type": "progress", "parentToolUseID": task_id, "toolUseID": task_id,
                       "data": {"type": "agent_progress", "agentId": agent, "prompt": "",
                                "normalizedMessages": [], "message": e}})
        if spec["layout"] in ("file", "both"):
            files[agent] = [{**e, "sessionId": t.sid, "agentId": agent, "isSidechain": True,
                             "cwd": t.cwd} for e in [*entries, final]]
        result_usage = {**spec["final"],
                        "output_tokens": spec["final"]["output_tokens"] + spec["more_output"]}
        t.raw({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": task_id, "content": "Found it."}]},
            "toolUseResult": {"status": "completed", "agentId": agent, "totalToolUseCount": 0,
                              "totalDurationMs": 4000, "totalTokens": 1, "content": [],
                              "usage": result_usage}})
    t.say("The build fails in part 0.")
    return t, files


def write_with_agents(env: Env, t: Transcript, files: dict[str, list[dict[str, Any]]]) -> None:
    """The session's transcript in a project folder of `env`, and each
    subagent's lines as Claude Code lays them out (`<session>/subagents/`)."""
    folder = env.claude / "projects" / "-work-app"
    t.write(folder / f"{t.sid}.jsonl")
    for agent, objs in files.items():
        path = folder / t.sid / "subagents" / f"agent-{agent}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(o) + "\n" for o in objs))


@settings(max_examples=examples(8, 40), deadline=None)
@given(agents=st.lists(agent_of, min_size=1, max_size=3))
def test_each_subagents_tokens_count_its_final_answer(tmp_path_factory: Any,
                                                      agents: list[dict[str, Any]]) -> None:
    env = Env(tmp_path_factory.mktemp("agent-tokens"))
    env.here = in_process("agent tokens")
    t, files = build(agents)
    write_with_agents(env, t, files)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    expected = agent_tokens(t.lines, files)
    lines = subagent_lines(note)
    assert len(lines) == len(agents), note
    for line, agent in zip(lines, task_agents(t.lines), strict=True):
        assert rounds_to(expected[agent], said_tokens(line)), (line, expected)
    # The main agent's messages are all Sonnet's: the other rows (Haiku, or
    # "unknown" for an agent nothing names the model of) are the agents'.
    rows = re.findall(r"^\| (?!\*\*Total)(.+?) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|",
                      note, re.M)
    assert rows, note
    assert sum(int(g.replace(",", "")) for model, *counts in rows for g in counts
               if model != "claude-sonnet-4-5") == sum(expected.values()), note


# -- every corpus session with subagents ------------------------------------------------

def _agent_files(main: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for p in session_files(main):
        objs = json_objects(p)
        agent = next((str(o["agentId"]) for o in objs if o.get("agentId")), p.stem[6:])
        out.setdefault(agent, []).extend(objs)
    return out


@pytest.mark.corpus
def test_every_corpus_subagents_tokens_are_its_messages(tmp_path: Path) -> None:
    """Each Task line of every corpus note whose agent's messages the JSON
    holds says the tokens the oracle counts (to the note's rounding)."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {}
    for text in env.notes().values():
        m = re.search(r"^session_id: (\S+)$", text, re.M)
        assert m is not None
        notes[m.group(1)] = text
    checked = with_result = 0
    for main in main_files():
        objs = json_objects(main)
        agents = task_agents(objs)
        if not any(agents):
            continue
        sid = next(str(o["sessionId"]) for o in objs if o.get("sessionId"))
        expected = agent_tokens(objs, _agent_files(main))
        lines = subagent_lines(notes[sid])
        assert len(lines) == len(agents), sid
        for line, agent in zip(lines, agents, strict=True):
            if agent in expected:
                checked += 1
                assert rounds_to(expected[agent], said_tokens(line)), (sid, line, expected[agent])
        with_result += any(isinstance(o.get("toolUseResult"), dict)
                           and isinstance(o["toolUseResult"].get("usage"), dict) for o in objs)
    # The corpus holds subagents whose result carries their final answer.
    assert checked >= 5 and with_result >= 2
