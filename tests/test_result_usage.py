"""Issue 29: a subagent's last API message counted once, wherever it is recorded.

A Task's result (`toolUseResult.usage`, Claude Code 2.0-2.1) carries the
usage of its subagent's last API message, the final answer. A subagent with
no file of its own streams its messages into the main file (`agent_progress`
lines) but stops before that answer, so the result is the one record of it
(b74fb8cb: 4,714 output tokens); where the agent's file or its progress lines
do hold the message, the result is the same message again (often with the
output the file recorded too early). Each generated session has one or two
subagents, each in one layout (its own file, progress lines only, both, or
the result alone), each recording its final message or not, with its final
output recorded whole or cut short; two agents may even share their last
message's prompt counts. The oracle is the generator's own ledger of API
messages: each message once, at its final usage (the result's, where a result
came), summed; the note's frontmatter must equal it, and the subagents'
model row must hold their messages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process, independent_tokens
from test_headlines import Transcript

SUB_MODEL = "claude-haiku-4-5"
KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
        "cache_creation_input_tokens")
FM = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
      "cache_read_input_tokens": "cache_read_tokens",
      "cache_creation_input_tokens": "cache_creation_tokens"}


@dataclass
class Agent:
    agent_id: str
    layout: str  # "file", "progress", "both", "result"
    usages: list[dict[str, int]]  # each API message's final usage, the last the answer
    final_recorded: bool  # its file / progress lines hold the final message
    final_cut: int  # the output its file recorded for the final message (<= the true one)
    finished: bool  # a result came
    entries: list[dict[str, Any]] = field(default_factory=list)


usage = st.fixed_dictionaries({
    "input_tokens": st.integers(1, 9), "output_tokens": st.integers(1, 5000),
    "cache_read_input_tokens": st.integers(0, 9_000),
    "cache_creation_input_tokens": st.integers(0, 9_000)})


@st.composite
def agents(draw: st.DrawFn) -> list[Agent]:
    out = []
    for n in range(draw(st.integers(1, 2))):
        usages = draw(st.lists(usage, min_size=1, max_size=4))
        # Each request re-sends the conversation so far: its prompt is longer
        # than the one before (read back from the cache), as a real agent's is.
        prompt = 0
        for u in usages:
            u["cache_read_input_tokens"] += prompt
            prompt = u["input_tokens"] + u["cache_read_input_tokens"] \
                + u["cache_creation_input_tokens"] + u["output_tokens"]
        final = usages[-1]
        layout = draw(st.sampled_from(["file", "progress", "both", "result"]))
        out.append(Agent(
            agent_id=f"a{n}c{draw(st.integers(100, 999))}",
            layout=layout, usages=usages,
            final_recorded=layout != "result" and draw(st.booleans()),
            final_cut=draw(st.integers(1, final["output_tokens"])),
            finished=layout == "result" or draw(st.booleans())))
    if len(out) == 2 and draw(st.booleans()):
        # The second agent's last message has the first's prompt counts:
        # matching must stay within an agent.
        twin = out[1].usages[-1]
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            twin[k] = out[0].usages[-1][k]
    return out


def agent_entries(t: Transcript, a: Agent) -> list[dict[str, Any]]:
    """The subagent's own entries: a prompt, then each API message (tool
    calls, then the final answer), its final one as the layout records it."""
    out: list[dict[str, Any]] = [{"type": "user", "uuid": f"{a.agent_id}-p",
                                  "timestamp": "2026-03-01T10:00:30.000Z",
                                  "message": {"role": "user", "content": "Look around"}}]
    last = len(a.usages) - 1
    for n, u in enumerate(a.usages):
        if n == last and not a.final_recorded:
            break
        ts = f"2026-03-01T10:01:{n:02d}.000Z"
        recorded = dict(u, output_tokens=a.final_cut) if n == last else u
        content = ([{"type": "text", "text": "Here is what I found."}] if n == last
                   else [{"type": "tool_use", "id": f"toolu_{a.agent_id}{n}", "name": "Grep",
                          "input": {"pattern": "x"}}])
        out.append({"type": "assistant", "uuid": f"{a.agent_id}-a{n}", "timestamp": ts,
                    "message": {"id": f"msg_{a.agent_id}_{n}", "role": "assistant",
                                "model": SUB_MODEL, "content": content, "usage": recorded}})
        if n != last:
            out.append({"type": "user", "uuid": f"{a.agent_id}-u{n}", "timestamp": ts,
                        "message": {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": f"toolu_{a.agent_id}{n}",
                             "content": "x.py"}]}})
    return out


def session(subs: list[Agent]) -> Transcript:
    t = Transcript()
    t.prompt("Look around the code and tell me what it does")
    for k, a in enumerate(subs):
        task_id = f"toolu_task{k}"
        t.lines.append({**t._base("assistant"), "message": {
            "id": f"msg_task{k}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": task_id, "name": "Task", "input": {
                "description": f"Explore part {k}", "subagent_type": "Explore",
                "prompt": "Look around"}}],
            "usage": {"input_tokens": 3, "output_tokens": 20 + k,
                      "cache_read_input_tokens": 1000 * (k + 1)}}})
        a.entries = agent_entries(t, a)
        if a.layout in ("progress", "both"):
            for e in a.entries:
                t.raw({"type": "progress", "parentToolUseID": task_id,
                       "toolUseID": f"agent_msg_{k}",
                       "data": {"type": "agent_progress", "agentId": a.agent_id, "prompt": "",
                                "normalizedMessages": [], "message": e}})
        if a.finished:
            final = a.usages[-1]
            t.lines.append({**t._base("user"), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": task_id,
                 "content": [{"type": "text", "text": "Here is what I found."}]}]},
                "toolUseResult": {"status": "completed", "agentId": a.agent_id,
                                  "totalToolUseCount": len(a.usages) - 1,
                                  "totalDurationMs": 5000,
                                  "totalTokens": sum(final.values()),
                                  "content": [], "usage": dict(final, service_tier="standard")}})
    t.say("That is the overview.")
    return t


def said_model(a: Agent) -> bool:
    """Whether anything records a message of the agent, with its model."""
    return a.layout != "result" and (len(a.usages) > 1 or a.final_recorded)


def ledger(t: Transcript, subs: list[Agent]) -> tuple[dict[str, int], dict[str, int]]:
    """What the API was asked, each message once at its final usage, of the
    messages something records: the main agent's, and each subagent's (in its
    file or progress lines; its last in the result, else at the output they
    hold). Also the subagents' own messages whose model is known."""
    total = dict.fromkeys(KEYS, 0)
    sub_model = dict.fromkeys(KEYS, 0)
    for line in t.lines:
        if line["type"] == "assistant":
            for k in KEYS:
                total[k] += line["message"]["usage"].get(k, 0)
    for a in subs:
        last = len(a.usages) - 1
        for n, u in enumerate(a.usages):
            if n < last and a.layout == "result":
                continue  # nothing records it: lost with the file Claude Code never wrote
            if n == last and not a.finished and not a.final_recorded:
                continue  # nothing records it
            out = a.final_cut if n == last and not a.finished else u["output_tokens"]
            counted = dict(u, output_tokens=out)
            for k in KEYS:
                total[k] += counted[k]
                if said_model(a):
                    sub_model[k] += counted[k]
    return total, sub_model


@settings(max_examples=examples(20, 80), deadline=None)
@given(subs=agents())
def test_a_subagents_last_message_counts_once_whatever_records_it(
        tmp_path_factory: Any, subs: list[Agent]) -> None:
    env = Env(tmp_path_factory.mktemp("result_usage"))
    env.here = in_process("result usage")
    t = session(subs)
    folder = env.claude / "projects" / "-work-app"
    main = folder / f"{t.sid}.jsonl"
    t.write(main)
    files = []
    for a in subs:
        if a.layout in ("file", "both"):
            path = folder / t.sid / "subagents" / f"agent-{a.agent_id}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps({**e, "sessionId": t.sid, "agentId": a.agent_id,
                                                "isSidechain": True, "cwd": t.cwd}) + "\n"
                                    for e in a.entries))
            files.append(path)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    fm = frontmatter(note)
    total, sub_model = ledger(t, subs)
    assert {FM[k]: fm[FM[k]] for k in KEYS} == {FM[k]: v for k, v in total.items()}, note
    # The JSON-only count (conftest) agrees with the generator's ledger.
    assert independent_tokens(main, files) == {FM[k]: v for k, v in total.items()}
    row = re.search(rf"^\| {SUB_MODEL} \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|",
                    note, re.M)
    if any(sub_model.values()):
        assert row is not None, note
        assert [int(x.replace(",", "")) for x in row.groups()] == [sub_model[k] for k in KEYS]
    else:
        assert row is None, note
    # A result with no message of its agent recorded anywhere names no model.
    blind = [a for a in subs if a.finished and not said_model(a)]
    assert ("| unknown |" in note) == bool(blind), note
